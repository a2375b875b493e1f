import ConfCore
import ConfWire
import Testing

/// Reading a ClientHello's ALPN protocols, as the rendezvous does to find an ACME validator's
/// `acme-tls/1` handshake: a real one, every truncation of it, and hostile lengths.
struct TLSClientHelloTests {
    /// What `openssl s_client -alpn acme-tls/1 -servername 2.0.0.11.in-addr.arpa -tls1_2` sent
    /// (OpenSSL 3.0), recorded.
    static let openSSLHello = Hex.bytes("16030100e6010000e203036644b04f0de17c91a27a97adad07268e04edfdf1512226c9e5646e3da991fdf3000038c02cc030009fcca9cca8ccaac02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c0035002f00ff010000810000001a0018000015322e302e302e31312e696e2d616464722e61727061000b000403000102000a000c000a001d0017001e00190018002300000010000d000b0a61636d652d746c732f310016000000170000000d002a0028040305030603080708080809080a080b080408050806040105010601030303010302040205020602", count: 235)!

    /// A ClientHello built by hand: `protocols` in its ALPN extension (none: no extension).
    static func hello(protocols: [String]?, extraExtension: [UInt8] = []) -> [UInt8] {
        var extensions = extraExtension
        if let protocols {
            let list = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
            let data = [UInt8(list.count >> 8), UInt8(list.count & 0xFF)] + list
            extensions += [0x00, 0x10, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        }
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 0x11, count: 32) + [0x00] + [0x00, 0x02, 0x13, 0x01] + [0x01, 0x00]
        body += [UInt8(extensions.count >> 8), UInt8(extensions.count & 0xFF)] + extensions
        let handshake = [0x01, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        return [0x16, 0x03, 0x01, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xFF)] + handshake
    }

    @Test func openSSLsHelloOffersACMEsProtocol() {
        #expect(TLSClientHello.read(Self.openSSLHello) == .protocols(["acme-tls/1"]))
    }

    @Test func aBrowsersHelloAndOneWithoutALPN() {
        #expect(TLSClientHello.read(Self.hello(protocols: ["h2", "http/1.1"])) == .protocols(["h2", "http/1.1"]))
        #expect(TLSClientHello.read(Self.hello(protocols: nil)) == .protocols([]))
        // Another extension first (server_name), then ALPN.
        let sni: [UInt8] = [0x00, 0x00, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00]
        #expect(TLSClientHello.read(Self.hello(protocols: ["acme-tls/1"], extraExtension: sni)) == .protocols(["acme-tls/1"]))
    }

    @Test func everyTruncationIsIncompleteOrRefusedAndNeverCrashes() {
        for hello in [Self.openSSLHello, Self.hello(protocols: ["acme-tls/1"])] {
            for length in 0..<hello.count {
                let reading = TLSClientHello.read(Array(hello.prefix(length)))
                #expect(reading == .incomplete, "\(length) of \(hello.count) bytes: \(reading)")
            }
        }
    }

    @Test func notAClientHello() {
        #expect(TLSClientHello.read(Array("GET / HTTP/1.1\r\n\r\n".utf8)) == .notClientHello)
        // A handshake record that is not a ClientHello (a ServerHello, type 2).
        var server = Self.hello(protocols: ["h2"])
        server[5] = 0x02
        #expect(TLSClientHello.read(server) == .notClientHello)
        // A record longer than TLS allows.
        #expect(TLSClientHello.read([0x16, 0x03, 0x01, 0x48, 0x01]) == .notClientHello)
    }

    @Test func hostileLengthsInsideTheRecordAreRefused() {
        let good = Self.hello(protocols: ["acme-tls/1"])
        // Each length field in turn set past what follows it.
        for offset in [6, 7, 8, 43, 44, 45, 48, 50, 51, 52, 53, 54, 55, 56, 57, 58] {
            var bad = good
            bad[offset] = 0xFF
            let reading = TLSClientHello.read(bad)
            #expect(reading != .protocols(["acme-tls/1"]), "byte \(offset) at 0xFF still read as acme-tls/1")
        }
        // An empty protocol name, an empty list.
        #expect(TLSClientHello.read(Self.hello(protocols: [""])) == .notClientHello)
        #expect(TLSClientHello.read(Self.hello(protocols: [])) == .notClientHello)
    }

    @Test func randomBytesNeverCrash() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<2_000 {
            var bytes = Self.hello(protocols: ["acme-tls/1", "h2"])
            for _ in 0..<3 { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = TLSClientHello.read(bytes)
        }
    }
}
