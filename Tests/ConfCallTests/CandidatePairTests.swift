import ConfCall
import ConfWire
import Testing

/// How `peer-connected` writes a pair's addresses: IPv6 in brackets, so the port stays readable.
struct CandidatePairTests {
    @Test func endpointsBracketIPv6AndLeaveIPv4Plain() throws {
        let v6 = try IceCandidate.parse("candidate:1 1 udp 2130706431 2001:db8:6::2 43983 typ host").get()
        let v4 = try IceCandidate.parse("candidate:2 1 udp 1694498815 198.51.100.2 5000 typ srflx raddr 10.0.1.2 rport 5000").get()
        let pair = CandidatePair(local: v6, remote: v4)
        #expect(pair.localEndpoint == "[2001:db8:6::2]:43983")
        #expect(pair.remoteEndpoint == "198.51.100.2:5000")
        #expect(pair.path == "srflx")
    }
}
