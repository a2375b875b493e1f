import ConfCall
import ConfCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A simulated call is a function of its seed. Swift seeds each dictionary's hashing apart (per
/// process and per instance), so an engine that walks its links in a dictionary's order would
/// queue, probe and cut in a different order each run, and a simulated failure could not be
/// replayed. Two runs of one seed in one process must agree to the packet.
@Suite struct CallEngineReproducibilityTests {
    /// ann's 1 Mbit/s uplink shared by her three links (where the order of links decides whose
    /// packets queue first), everyone sending audio and layered video, and cat and dan unable to
    /// reach each other (their links fail and are tried again, drawing new credentials): what ann
    /// reported about each link, everyone's links coming and going, and what each peer received.
    /// The call is returned too, so that a second run's dictionaries are not laid out in the
    /// first one's freed memory.
    func trace(seed: UInt64) throws -> (SimulatedCall, [String]) {
        let call = SimulatedCall(seed: seed, handshake: .fakeDTLS)
        let people = try ["ann", "bob", "cat", "dan"].map { name in
            try call.add(name) {
                $0.videoBitrateKbps = 600
                $0.statsInterval = .milliseconds(500)
            }
        }
        for person in people {
            person.sendsAudio = true
            person.sendsVideo = true
            person.layeredVideo = LayeredVideoSource(startKbps: 600)
        }
        let ann = people[0]
        CallEngineCongestionTests.shareUplink(call, of: people, bitsPerSecond: 1_000_000)
        call.network.partition(people[2].id, people[3].id)
        for person in people { call.join(person) }
        #expect(call.run(for: .seconds(5)) { people.allSatisfy { person in person.connectedEvents.count >= 2 } })
        call.run(for: .seconds(18))
        let reports = ann.events.flatMap { entry -> [String] in
            guard case .linkStats(let links) = entry.event else { return [] }
            return links.map { "\(entry.at) \($0.peer) est \($0.estimateKbps) sent \($0.sentKbps) q \($0.queueDelay) layers \($0.videoLayers)" }
        }
        let received = people.dropFirst().map { peer in
            "\(peer.card.name): video \(peer.videoFrames[ann.id, default: 0]) audio \(peer.receivedAudioFrames[ann.id, default: 0])"
        }
        let comings = people.flatMap { person in
            person.events.compactMap { entry -> String? in
                switch entry.event {
                case .peerConnected(let info): "\(entry.at) \(person.card.name) connected to \(info.peer.id)"
                case .peerDisconnected(let info): "\(entry.at) \(person.card.name) lost \(info.peer.id): \(info.reason)"
                default: nil
                }
            }
        }
        return (call, reports + comings + received)
    }

    @Test func twoRunsOfOneSeedAgreeToThePacket() throws {
        let (firstCall, first) = try trace(seed: 41)
        let second = try withExtendedLifetime(firstCall) { try trace(seed: 41).1 }
        #expect(first.count > 40, "ann reported her links: \(first.count) lines")
        #expect(first.contains { $0.contains("cat lost") }, "cat's link to dan failed and was tried again")
        let firstDifference = zip(first, second).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(first.count == second.count && firstDifference == nil,
                "first difference: \(firstDifference.map { "\(first[$0]) against \(second[$0])" } ?? "in length")")
    }

    /// Real DTLS times its flights in real time. A machine that stalls before the handshake
    /// (a loaded parallel run; here 450 ms before each of the first three datagrams, ICE's
    /// checks) ran the client's timer out before the server's flight came: the handshake then
    /// never completed within the run (the overdue ClientHello went in one datagram with the next
    /// flight, and the server answered nothing). It now connects at the same simulated instant.
    @Test func realDTLSConnectsAtTheSameInstantOnAStalledMachine() throws {
        func connectedAt(stalls: Int) throws -> [Instant] {
            let call = SimulatedCall(seed: 43, dtlsTimerInRealTime: true)
            let ann = try call.add("ann"), bob = try call.add("bob")
            var left = stalls
            call.beforeDelivery = { _, _, _ in
                guard left > 0 else { return }
                left -= 1
                usleep(450_000)
            }
            call.join(ann)
            call.join(bob)
            #expect(call.run(for: .seconds(5)) { !ann.connectedEvents.isEmpty && !bob.connectedEvents.isEmpty }, "stalls: \(stalls)")
            // ann's client resent its ClientHello when stalled: no handshake round trip (Karn's rule).
            #expect((ann.connectedEvents.first?.roundTrip == nil) == (stalls > 0), "\(String(describing: ann.connectedEvents.first?.roundTrip))")
            return [ann, bob].compactMap { person in
                person.events.first { if case .peerConnected = $0.event { true } else { false } }?.at
            }
        }
        let steady = try connectedAt(stalls: 0), stalled = try connectedAt(stalls: 3)
        #expect(steady.count == 2 && stalled == steady, "steady \(steady), stalled \(stalled)")
    }

    /// OpenSSL's retransmission timer runs on the simulated clock: a lost first flight is sent
    /// again after the 400 ms the timer is set to, at the same simulated instant in every run,
    /// with no real time passing for it.
    @Test func realDTLSResendsALostFlightOnTheSimulatedClock() throws {
        func connectedAt(losingFirstFlight: Bool) throws -> [Instant] {
            let call = SimulatedCall(seed: 44)
            let ann = try call.add("ann"), bob = try call.add("bob")
            var lost = 0
            call.delivers = { _, _, bytes in
                // RFC 7983: 20-63 is DTLS. The first handshake datagram, whoever sends it.
                guard losingFirstFlight, lost == 0, let first = bytes.first, (20...63).contains(first) else { return true }
                lost += 1
                return false
            }
            call.join(ann)
            call.join(bob)
            #expect(call.run(for: .seconds(5)) { !ann.connectedEvents.isEmpty && !bob.connectedEvents.isEmpty })
            #expect(lost == (losingFirstFlight ? 1 : 0))
            return [ann, bob].compactMap { person in
                person.events.first { if case .peerConnected = $0.event { true } else { false } }?.at
            }
        }
        let steady = try connectedAt(losingFirstFlight: false)
        let lossy = try connectedAt(losingFirstFlight: true), again = try connectedAt(losingFirstFlight: true)
        #expect(steady.count == 2 && lossy.count == 2)
        #expect(lossy == again, "the same instants in two runs: \(lossy) against \(again)")
        let delay = zip(lossy, steady).map { $0.since($1).milliseconds }.min() ?? 0
        #expect(delay >= 400 && delay < 800, "a flight resent after the 400 ms timer: \(delay) ms later than without the loss")
    }
}
