import ConfIO
import ConfWire
import Testing

/// ICE server URLs as a rendezvous hands them out (RFC 7064, RFC 7065) and back.
struct IceServerAddressTests {
    @Test func urlsBecomeAddressesWithTheirTransports() {
        let servers = IceServerAddress.addresses(from: [
            IceServer(urls: ["stun:192.0.2.1", "stun:[2001:db8::1]:3479"]),
            IceServer(urls: ["turn:192.0.2.2?transport=tcp", "turns:192.0.2.3?transport=tcp", "turns:192.0.2.4:443"],
                      username: "u", credential: "p"),
            IceServer(urls: ["turn:192.0.2.5"]),  // TURN without credentials: unusable
            IceServer(urls: ["http://192.0.2.6"]),
        ])
        #expect(servers.map { "\(HostPort(host: $0.host, port: $0.port))" }
                == ["192.0.2.1:3478", "[2001:db8::1]:3479", "192.0.2.2:3478", "192.0.2.3:5349", "192.0.2.4:443"])
        #expect(servers.map(\.overTCP) == [false, false, true, true, true])
        #expect(servers.map(\.tlsServerName) == [nil, nil, nil, "192.0.2.3", "192.0.2.4"])
        #expect(servers[2].credentials?.username == "u" && servers[2].credentials?.password == "p")
    }

    @Test func addressesGoBackToTheSameURLs() {
        let servers = [IceServerAddress(host: "192.0.2.1", port: 3478),
                       IceServerAddress(host: "192.0.2.2", port: 3478, credentials: ("u", "p"), overTCP: true),
                       IceServerAddress(host: "192.0.2.3", port: 5349, credentials: ("u", "p"), tlsServerName: "192.0.2.3")]
        let urls = IceServerAddress.iceServers(servers)
        #expect(urls.flatMap(\.urls) == ["stun:192.0.2.1:3478", "turn:192.0.2.2:3478?transport=tcp", "turns:192.0.2.3:5349?transport=tcp"])
        #expect(IceServerAddress.addresses(from: urls) == servers)
    }
}
