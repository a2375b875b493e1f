@testable import ConfCall
import ConfWire
import Testing

/// What a link's candidates say of why it found no path, and the cure named.
@Suite struct NoPathCauseTests {
    static func candidate(_ text: String) -> IceCandidate {
        guard case .success(let candidate) = IceCandidate.parse(text) else { fatalError("bad test candidate \(text)") }
        return candidate
    }

    static let homeA = candidate("candidate:1 1 UDP 2130706431 192.168.1.10 5001 typ host")
    static let homeB = candidate("candidate:1 1 UDP 2130706431 192.168.2.10 6001 typ host")
    static let kept = candidate("candidate:2 1 UDP 1694498815 203.0.113.5 5001 typ srflx raddr 192.168.1.10 rport 5001")
    static let rewritten = candidate("candidate:2 1 UDP 1694498815 198.51.100.7 40123 typ srflx raddr 192.168.2.10 rport 6001")
    static let relay = candidate("candidate:3 1 UDP 16777215 198.51.100.9 50000 typ relay raddr 203.0.113.5 rport 5001")
    static let publicHost = candidate("candidate:1 1 UDP 2130706431 198.51.100.20 7001 typ host")

    @Test func bothBehindNATsNamesTheRelayAsTheCure() {
        let cause = NoPathCause.diagnose(local: [Self.homeA, Self.kept], remote: [Self.homeB, Self.rewritten])
        #expect(cause == .bothBehindNAT(portsRewritten: true))
        #expect(cause.words.contains("both behind NATs") && cause.words.contains("symmetric") && cause.words.contains("TURN"))
        #expect(cause.words.contains("conf rendezvous --turn") && cause.words.contains("--turn USER:PASS@HOST:PORT"))
        let unchanged = NoPathCause.diagnose(local: [Self.homeA, Self.kept], remote: [Self.homeB, Self.kept])
        #expect(unchanged == .bothBehindNAT(portsRewritten: false))
        #expect(!unchanged.words.contains("symmetric"))
    }

    @Test func oneSideWithoutAnOutsideAddress() {
        #expect(NoPathCause.diagnose(local: [Self.homeA], remote: [Self.homeB, Self.kept]) == .noOutsideAddress(here: true))
        #expect(NoPathCause.diagnose(local: [Self.homeA, Self.kept], remote: [Self.homeB]) == .noOutsideAddress(here: false))
        // A public host address is no NAT: nothing to say of it.
        #expect(NoPathCause.diagnose(local: [Self.publicHost], remote: [Self.homeB, Self.kept]) == .unknown)
    }

    @Test func aRelayThatFailedAndTooLittleToSay() {
        #expect(NoPathCause.diagnose(local: [Self.homeA, Self.kept, Self.relay], remote: [Self.homeB]) == .relayFailed)
        #expect(NoPathCause.relayFailed.words.contains("--relay-only"))
        #expect(NoPathCause.diagnose(local: [Self.homeA, Self.kept], remote: []) == .unknown)
        #expect(NoPathCause.diagnose(local: [Self.homeA], remote: [Self.homeB]) == .unknown)
        #expect(NoPathCause.unknown.words == DisconnectReason.noPathAdvice)
    }
}
