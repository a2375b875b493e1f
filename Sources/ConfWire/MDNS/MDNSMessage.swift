/// The two Multicast DNS messages conf needs (RFC 6762, over RFC 1035's format): a query for a
/// browser's `<uuid>.local` name, and the addresses a response gives for it. Browsers put such
/// names in their host candidates to hide their local addresses, and answer queries for them.
public enum MDNSMessage {
    /// A name a browser's candidate may carry: labels of letters, digits and '-', ending in
    /// ".local", at most 255 bytes. Anything else is not looked up.
    public static func isLocalName(_ name: String) -> Bool {
        let labels = name.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 255, labels.count >= 2, labels.last == "local" else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        }
    }

    /// A query for `name`'s IPv4 address (type A, class IN), id 0 as section 18.1 asks; nil for a
    /// name `isLocalName` refuses.
    public static func query(for name: String) -> [UInt8]? {
        guard isLocalName(name) else { return nil }
        var bytes: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]  // id, flags, one question
        for label in name.lowercased().split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes += Array(label.utf8)
        }
        bytes += [0, 0, 1, 0, 1]  // root, type A, class IN
        return bytes
    }

    /// The IPv4 addresses a response gives `name` (its A records, in any section); empty for a
    /// query, a malformed message, or one that says nothing of `name`. Reads at most 64 records
    /// and follows at most 16 compression pointers per name.
    public static func addresses(of name: String, in message: [UInt8]) -> [[UInt8]] {
        guard message.count >= 12, message[2] & 0x80 != 0 else { return [] }  // QR: a response
        let wanted = name.lowercased()
        let questions = Int(message[4]) << 8 | Int(message[5])
        let records = min(64, (Int(message[6]) << 8 | Int(message[7])) + (Int(message[8]) << 8 | Int(message[9]))
                              + (Int(message[10]) << 8 | Int(message[11])))
        var offset = 12
        for _ in 0..<min(questions, 16) {
            guard let (_, next) = readName(message, at: offset), next + 4 <= message.count else { return [] }
            offset = next + 4
        }
        var found: [[UInt8]] = []
        for _ in 0..<records {
            guard let (owner, next) = readName(message, at: offset), next + 10 <= message.count else { break }
            let type = Int(message[next]) << 8 | Int(message[next + 1])
            let recordClass = (Int(message[next + 2]) << 8 | Int(message[next + 3])) & 0x7FFF  // the top bit is cache-flush
            let length = Int(message[next + 8]) << 8 | Int(message[next + 9])
            let data = next + 10
            guard data + length <= message.count else { break }
            if type == 1, recordClass == 1, length == 4, owner == wanted { found.append(Array(message[data..<(data + 4)])) }
            offset = data + length
        }
        return found
    }

    /// The name at `offset` (lower case, dotted) and the offset after it in the message.
    static func readName(_ message: [UInt8], at start: Int) -> (String, Int)? {
        var labels: [String] = []
        var offset = start
        var after: Int?
        var jumps = 0
        var length = 0
        while offset < message.count {
            let size = Int(message[offset])
            if size == 0 {
                return (labels.joined(separator: "."), after ?? offset + 1)
            }
            if size & 0xC0 == 0xC0 {
                guard offset + 1 < message.count, jumps < 16 else { return nil }
                jumps += 1
                if after == nil { after = offset + 2 }
                offset = (size & 0x3F) << 8 | Int(message[offset + 1])
                continue
            }
            guard size & 0xC0 == 0, offset + 1 + size <= message.count else { return nil }
            length += size + 1
            guard length <= 255 else { return nil }
            labels.append(String(decoding: message[(offset + 1)...(offset + size)], as: UTF8.self).lowercased())
            offset += 1 + size
        }
        return nil
    }
}
