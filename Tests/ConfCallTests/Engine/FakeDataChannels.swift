import ConfCall

/// A stand-in for usrsctp in engine tests: channels by label over the link's DTLS, one packet per
/// message: [kind][label length][label][text]. Open is acknowledged, like DCEP (RFC 8832).
final class FakeDataChannels: DataChannelAssociation {
    private enum Kind: UInt8 { case open = 1, ack = 2, message = 3, close = 4 }
    private var outputs: [DataChannelOutput] = []
    private var open: Set<String> = []
    private var closed = false

    func connect(remotePort: UInt16) {}

    func receive(_ packet: [UInt8]) {
        guard packet.count >= 2, let kind = Kind(rawValue: packet[0]), !closed else { return }
        let length = Int(packet[1])
        guard packet.count >= 2 + length else { return }
        let label = String(decoding: packet[2..<(2 + length)], as: UTF8.self)
        let text = String(decoding: packet[(2 + length)...], as: UTF8.self)
        switch kind {
        case .open:
            open.insert(label)
            outputs.append(.packet(Self.frame(.ack, label, "")))
            outputs.append(.opened(label: label))
        case .ack:
            if open.insert(label).inserted { outputs.append(.opened(label: label)) }
        case .message:
            if open.contains(label) { outputs.append(.message(label: label, text: text)) }
        case .close:
            open.remove(label)
            outputs.append(.closed(label: label))
        }
    }

    func open(label: String) { outputs.append(.packet(Self.frame(.open, label, ""))) }

    func send(text: String, label: String) -> Bool {
        guard open.contains(label), !closed else { return false }
        outputs.append(.packet(Self.frame(.message, label, text)))
        return true
    }

    func close() {
        closed = true
        open.removeAll()
    }

    func pollOutput() -> DataChannelOutput? { outputs.isEmpty ? nil : outputs.removeFirst() }

    private static func frame(_ kind: Kind, _ label: String, _ text: String) -> [UInt8] {
        [kind.rawValue, UInt8(label.utf8.count)] + Array(label.utf8) + Array(text.utf8)
    }
}

struct FakeDataChannelFactory: DataChannelFactory {
    func makeAssociation(isDTLSClient: Bool) -> any DataChannelAssociation { FakeDataChannels() }
}
