import ConfCall
import ConfCore
import Testing

/// `peer-connected`'s `rtt_ms` is the path's round trip, on both sides of a link, whichever side
/// finished DTLS first (the first sender report of the earlier one reaches a peer without keys).
struct CallEngineRoundTripTests {
    @Test(arguments: [5, 40])
    func bothSidesReportThePathsRoundTrip(oneWayMilliseconds: Int) throws {
        let call = SimulatedCall(seed: UInt64(oneWayMilliseconds))
        call.network.defaultConditions.delay = .milliseconds(Int64(oneWayMilliseconds))
        let ann = try call.add("ann"), bob = try call.add("bob")
        ann.sendsAudio = true
        bob.sendsAudio = true
        call.join(ann)
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { !ann.connectedEvents.isEmpty && !bob.connectedEvents.isEmpty })
        let expected = Double(2 * oneWayMilliseconds)
        for rtt in (ann.connectedEvents + bob.connectedEvents).map({ $0.roundTrip.milliseconds }) {
            #expect(abs(rtt - expected) < 2, "rtt \(rtt) ms on a path of \(expected) ms")
        }
    }
}
