/// The RFC 8285 one-byte header extension elements of one RTP packet, by id.
///
/// A packet carries one to three of them (audio level, transport sequence number), and every
/// packet sent or received builds a set: so they live in one byte buffer, `id, count, data...`
/// per element in increasing id order, instead of a dictionary with an array per element.
/// Equal sets are equal buffers, whatever order the elements were set or arrived in.
public struct RTPHeaderExtensions: Equatable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    private var storage: [UInt8] = []

    public init() {}

    public init(dictionaryLiteral elements: (UInt8, [UInt8])...) {
        for (id, data) in elements { self[id] = data }
    }

    public var isEmpty: Bool { storage.isEmpty }

    /// An element's data (at most 255 octets are kept); nil removes it.
    public subscript(id: UInt8) -> [UInt8]? {
        get { data(id).map(Array.init) }
        set {
            if let newValue { set(id, newValue[...]) } else { remove(id) }
        }
    }

    /// An element's data without copying it out.
    public func data(_ id: UInt8) -> ArraySlice<UInt8>? {
        let (at, found) = locate(id)
        return found ? storage[(at + 2)..<(at + 2 + Int(storage[at + 1]))] : nil
    }

    public mutating func set(_ id: UInt8, _ data: ArraySlice<UInt8>) {
        let (at, found) = locate(id)
        let data = data.prefix(255)
        if !found && at == storage.count {
            // The common case: elements set, or parsed, in increasing id order.
            storage.append(id)
            storage.append(UInt8(data.count))
            storage.append(contentsOf: data)
            return
        }
        let oldEnd = found ? at + 2 + Int(storage[at + 1]) : at
        storage.replaceSubrange(at..<oldEnd, with: [id, UInt8(data.count)] + data)
    }

    public mutating func remove(_ id: UInt8) {
        let (at, found) = locate(id)
        if found { storage.removeSubrange(at..<(at + 2 + Int(storage[at + 1]))) }
    }

    /// Where `id`'s element starts, or where it would go to keep ids increasing.
    private func locate(_ id: UInt8) -> (at: Int, found: Bool) {
        var at = 0
        while at < storage.count {
            if storage[at] == id { return (at, true) }
            if storage[at] > id { break }
            at += 2 + Int(storage[at + 1])
        }
        return (at, false)
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let storage: [UInt8]
        fileprivate var at = 0

        public mutating func next() -> (id: UInt8, data: ArraySlice<UInt8>)? {
            guard at < storage.count else { return nil }
            let id = storage[at], end = at + 2 + Int(storage[at + 1])
            defer { at = end }
            return (id, storage[(at + 2)..<end])
        }
    }

    /// The elements in increasing id order.
    public func makeIterator() -> Iterator { Iterator(storage: storage) }
}
