/// What a TLS ClientHello asks for before the handshake starts: its application protocols (ALPN,
/// RFC 7301). The rendezvous reads it from the first bytes of a connection (peeked, not taken)
/// to tell an ACME validator's `acme-tls/1` handshake (RFC 8737), which must see the challenge's
/// certificate, from a guest's. Pure; every length is checked against what is there.
public enum TLSClientHello {
    public enum Reading: Equatable, Sendable {
        /// Not enough bytes yet for the whole ClientHello.
        case incomplete
        /// Not a TLS ClientHello (or not one we can read in its first record).
        case notClientHello
        /// The protocols it offers, in its order; empty without ALPN.
        case protocols([String])
    }

    /// The ALPN protocol of the ACME validator.
    public static let acmeProtocol = "acme-tls/1"

    public static func read(_ bytes: [UInt8]) -> Reading {
        var record = Cursor(bytes[...])
        // TLSPlaintext: handshake (22), a version, a length (RFC 8446 section 5.1).
        guard let type = record.byte() else { return .incomplete }
        guard type == 22 else { return .notClientHello }
        guard let _ = record.take(2), let recordLength = record.number(2) else { return .incomplete }
        guard recordLength <= 16_384 else { return .notClientHello }
        guard let fragment = record.take(recordLength) else { return .incomplete }
        var hello = Cursor(fragment)
        // Handshake: client_hello (1), a 3-byte length; all of it in this first record.
        guard hello.byte() == 1, let length = hello.number(3), let body = hello.take(length) else { return .notClientHello }
        var cursor = Cursor(body)
        guard cursor.take(2 + 32) != nil,                                         // legacy_version, random
              let sessionLength = cursor.number(1), cursor.take(sessionLength) != nil,
              let suitesLength = cursor.number(2), cursor.take(suitesLength) != nil,
              let compressionLength = cursor.number(1), cursor.take(compressionLength) != nil else { return .notClientHello }
        guard !cursor.isAtEnd else { return .protocols([]) }
        guard let extensionsLength = cursor.number(2), var extensions = cursor.take(extensionsLength).map(Cursor.init) else { return .notClientHello }
        while !extensions.isAtEnd {
            guard let type = extensions.number(2), let length = extensions.number(2), let data = extensions.take(length) else { return .notClientHello }
            guard type == 16 else { continue }  // application_layer_protocol_negotiation
            var list = Cursor(data)
            guard let listLength = list.number(2), listLength == data.count - 2, listLength > 0 else { return .notClientHello }
            var protocols: [String] = []
            while !list.isAtEnd {
                guard let nameLength = list.number(1), nameLength > 0, let name = list.take(nameLength) else { return .notClientHello }
                protocols.append(String(decoding: name, as: UTF8.self))
            }
            return .protocols(protocols)
        }
        return .protocols([])
    }

    private struct Cursor {
        var rest: ArraySlice<UInt8>
        init(_ bytes: ArraySlice<UInt8>) { rest = bytes }
        var isAtEnd: Bool { rest.isEmpty }

        mutating func byte() -> UInt8? { rest.popFirst() }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, rest.count >= count else { return nil }
            defer { rest = rest.dropFirst(count) }
            return rest.prefix(count)
        }

        mutating func number(_ size: Int) -> Int? {
            take(size).map { $0.reduce(0) { $0 << 8 | Int($1) } }
        }
    }
}
