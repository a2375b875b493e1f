import ConfCore
import ConfWire
import Testing

@Suite struct GatewayEpochTests {
    func at(_ seconds: UInt64) -> Instant { Instant(nanoseconds: seconds * 1_000_000_000) }

    func lost(_ epoch: inout GatewayEpoch, _ epochTime: UInt32, _ now: Instant) -> Bool { epoch.lostState(epochTime: epochTime, now: now) }

    @Test func pcpAllowsOneSecondBackAndSmallDrift() {
        var epoch = GatewayEpoch(rule: .pcp)
        #expect(!lost(&epoch, 1000, at(50)))
        #expect(!lost(&epoch, 999, at(50)))  // one second back: allowed
        #expect(!lost(&epoch, 1099, at(150)))
        #expect(!lost(&epoch, 1099 + 106, at(250)))  // 6% fast: within 1/16 + 2 s
    }

    @Test func pcpSeesARestart() {
        var back = GatewayEpoch(rule: .pcp)
        _ = back.lostState(epochTime: 1000, now: at(0))
        #expect(lost(&back, 998, at(0)))

        var slow = GatewayEpoch(rule: .pcp)  // 100 s passed here, 10 on the server: it restarted
        _ = slow.lostState(epochTime: 1000, now: at(0))
        #expect(lost(&slow, 1010, at(100)))

        var fast = GatewayEpoch(rule: .pcp)
        _ = fast.lostState(epochTime: 1000, now: at(0))
        #expect(lost(&fast, 1200, at(100)))
    }

    @Test func natPMPExpectsSevenEighthsOfTheClientsTime() {
        var epoch = GatewayEpoch(rule: .natPMP)
        #expect(!lost(&epoch, 500, at(0)))
        #expect(!lost(&epoch, 500 + 86, at(100)))  // 87.5 - 2 <= 86
        #expect(lost(&epoch, 586 + 80, at(200)))
        #expect(!lost(&epoch, 10_000, at(200)))  // ahead is not a restart in RFC 6886
    }
}
