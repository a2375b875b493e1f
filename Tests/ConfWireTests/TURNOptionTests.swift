import ConfWire
import Testing

/// `--turn USER:PASS@HOST:PORT[?transport=tcp|tls]`, as a person types it (or mistypes it).
@Suite struct TURNOptionTests {
    @Test func theThreeTransportsAreRead() throws {
        let udp = try #require(TURNOption("ann:s3cret@192.0.2.1:3478"))
        #expect(udp.username == "ann" && udp.password == "s3cret" && udp.transport == .udp)
        #expect(udp.endpoint.host == "192.0.2.1" && udp.endpoint.port == 3478)
        #expect(TURNOption("ann:s3cret@192.0.2.1:3478?transport=tcp")?.transport == .tcp)
        #expect(TURNOption("ann:s3cret@192.0.2.1:3478?transport=udp") == udp)
        let tls = try #require(TURNOption("ann:s3cret@turn.example.org:443?transport=tls"))
        #expect(tls.transport == .tls && tls.endpoint.host == "turn.example.org" && tls.endpoint.port == 443)
    }

    @Test func aPasswordMayHoldColonsAndAtSigns() throws {
        let option = try #require(TURNOption("ann:a:b@c@[2001:db8::1]:3478"))
        #expect(option.username == "ann" && option.password == "a:b@c")
        #expect(option.endpoint.host == "2001:db8::1" && option.endpoint.port == 3478)
    }

    @Test func withoutAPortTURNsOwnIsUsed() {
        #expect(TURNOption("ann:pass@turn.example.org")?.endpoint.port == 3478)
        #expect(TURNOption("ann:pass@[2001:db8::1]?transport=tcp")?.endpoint.port == 3478)
        #expect(TURNOption("ann:pass@turn.example.org?transport=tls")?.endpoint.port == 5349)
    }

    @Test(arguments: ["", "192.0.2.1:3478", "ann@192.0.2.1:3478", ":pass@192.0.2.1:3478", "ann:pass@", "ann:pass@host:port",
                      "ann:pass@2001:db8::1:3478", "ann:pass@192.0.2.1:3478?transport=sctp", "ann:pass@192.0.2.1:99999", "ann:pass@192.0.2.1:0"])
    func malformedValuesAreRefused(_ text: String) {
        #expect(TURNOption(text) == nil)
    }
}
