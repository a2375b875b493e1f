import ConfCall
import ConfCore
import Testing

/// `peer-connected` comes when DTLS is up, with the handshake's round trip as its `rtt_ms`, on both
/// sides of a link, whichever side finished DTLS first; RTCP's round trip follows in `link-stats`.
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
        for event in ann.connectedEvents + bob.connectedEvents {
            let rtt = try #require(event.roundTrip?.milliseconds)
            #expect(abs(rtt - expected) < 2, "rtt \(rtt) ms on a path of \(expected) ms")
            #expect(event.announced == event.dtlsConnected, "announced when DTLS is up")
        }
    }

    /// A peer that sends no RTCP at first (browsers, some WebRTC stacks) is announced when DTLS is
    /// up, not half a second later when conf gave up waiting for its first report; its RTCP round
    /// trip, once it answers, is in `link-stats`.
    @Test func aPeerThatSendsNoRTCPYetIsAnnouncedWhenDTLSIsUp() throws {
        let call = SimulatedCall(seed: 7)
        let ann = try call.add("ann") { $0.statsInterval = .seconds(1) }, bob = try call.add("bob")
        bob.withholdsRTCP = true
        call.join(ann)
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { !ann.connectedEvents.isEmpty })
        let connected = try #require(ann.connectedEvents.first)
        let dtls = try #require(connected.dtlsConnected)
        #expect(connected.announced == dtls, "announced \(String(describing: connected.announced)), DTLS up at \(dtls)")
        let rtt = try #require(connected.roundTrip?.milliseconds, "the handshake's round trip")
        #expect(abs(rtt - 40) < 2, "the 20 ms one-way path's round trip: \(rtt) ms")

        bob.withholdsRTCP = false
        let answering = call.now
        call.run(for: .seconds(3))
        let measured = ann.events.filter { $0.at > answering }.flatMap { entry -> [CallEvent.LinkStatistics] in
            if case .linkStats(let links) = entry.event { links.filter { $0.peer == bob.id } } else { [] }
        }
        let last = try #require(measured.last?.roundTrip?.milliseconds, "link-stats with RTCP's round trip")
        #expect(abs(last - 40) < 2, "\(last) ms")
        #expect(ann.events.allSatisfy { if case .peerDisconnected = $0.event { false } else { true } })
    }
}
