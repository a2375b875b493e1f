import ConfCore
import ConfCrypto
import ConfIO
import ConfWire
import Testing

/// Two real libnice agents on loopback. The case that matters: a peer's first datagram (a DTLS
/// ClientHello) arrives as soon as *its* side of ICE works, which can be before our agent has
/// selected a pair; our immediate reply must not be lost (it used to be, and the handshake then
/// waited a second for the peer's retransmission).
@Suite(.serialized) struct IceTransportTests {
    /// A controlling and a controlled agent wired to each other on one loop.
    final class Pair {
        let loop: EventLoop
        let controlling: IceTransport
        let controlled: IceTransport
        let clock = SystemClock()

        private init(loop: EventLoop, controlling: IceTransport, controlled: IceTransport) {
            self.loop = loop
            self.controlling = controlling
            self.controlled = controlled
        }

        /// The same agents with the roles of speaker and answerer exchanged.
        func swapped() -> Pair { Pair(loop: loop, controlling: controlled, controlled: controlling) }

        /// With `trickleToControlled` false the controlled agent never gets the other's candidates:
        /// it learns its address from the first check (peer-reflexive), as when trickled
        /// candidates are late, so its own pair comes last.
        init(trickleToControlled: Bool = true) throws {
            loop = EventLoop()
            controlling = try IceTransport(loop: loop, controlling: true, addresses: ["127.0.0.1"], servers: [])
            controlled = try IceTransport(loop: loop, controlling: false, addresses: ["127.0.0.1"], servers: [])
            for (from, to) in [(controlling, controlled), (controlled, controlling)] {
                to.setRemoteCredentials(ufrag: from.localUfrag, pwd: from.localPwd)
                if from === controlling && !trickleToControlled { continue }
                from.onCandidate = { [unowned to] candidate in to.addRemote(candidate) }
                from.onGatheringDone = { [unowned to] in to.remoteGatheringDone() }
            }
        }

        func start() {
            controlling.gather()
            controlled.gather()
        }


        /// Runs the loop until `done` holds or `limit` passes; true if it held.
        func run(for limit: Duration, until done: @escaping () -> Bool) -> Bool {
            let deadline = ContinuousClock.now + limit
            var held = false
            loop.schedule(every: .milliseconds(2)) { [unowned self] in
                held = done()
                if held || ContinuousClock.now > deadline { self.loop.quit(); return false }
                return true
            }
            loop.run()
            return held
        }

        func close() {
            controlling.close()
            controlled.close()
        }
    }

    /// The controlling side speaks first, the moment its side of ICE works (as a DTLS client
    /// does); the controlled side, which got no trickled candidates and so selects its pair last,
    /// answers each datagram at once (as a DTLS server does). The answer used to be lost every
    /// time; now it waits for the pair, which on loopback is one check pacing (~20 ms).
    @Test func aReplySentBeforeOurPairIsSelectedArrives() throws {
        var slowest: Duration = .zero
        for run in 0..<10 {
            let pair = try Pair(trickleToControlled: false)
            var sentAt: Instant?
            var answeredAfter: Duration?
            pair.controlled.onDatagram = { [unowned pair] datagram in pair.controlled.send(datagram) }
            pair.controlling.onState = { [unowned pair] state in
                guard state == .connected, sentAt == nil else { return }
                sentAt = pair.clock.now()
                pair.controlling.send([22] + Array("hello \(run)".utf8))  // 22: a DTLS handshake record's first byte
            }
            pair.controlling.onDatagram = { [unowned pair] datagram in
                guard datagram == [22] + Array("hello \(run)".utf8), let sentAt, answeredAfter == nil else { return }
                answeredAfter = pair.clock.now().since(sentAt)
            }
            pair.start()
            let answered = pair.run(for: .seconds(3)) { answeredAfter != nil }
            #expect(pair.controlled.droppedDatagrams == 0 && pair.controlled.queuedDatagrams == 0)
            pair.close()
            #expect(answered, "run \(run): the answer to the first datagram was lost")
            guard let answeredAfter else { return }
            slowest = max(slowest, answeredAfter)
        }
        #expect(slowest < .milliseconds(200), "slowest answer: \(slowest)")
    }

    /// The same with a real DTLS handshake: the client starts the moment its side of ICE works,
    /// the server (whose agent selects its pair last) answers at once. Every handshake completes
    /// well within the 400 ms after which conf's client would retransmit (a browser waits 1 s);
    /// before the backlog, the server's first flight was lost and the slowest took ~407 ms.
    @Test func aDTLSHandshakeWhoseServerAnswersEarlyCompletesAtOnce() throws {
        let clientCertificate = try DTLSCertificate(), serverCertificate = try DTLSCertificate()
        var slowest: Duration = .zero
        for run in 0..<10 {
            let pair = try Pair(trickleToControlled: false)
            let client = try DTLSEndpoint(certificate: clientCertificate, role: .client, remoteFingerprints: [serverCertificate.fingerprint])
            let server = try DTLSEndpoint(certificate: serverCertificate, role: .server, remoteFingerprints: [clientCertificate.fingerprint])
            var startedAt: Instant?
            var tookFor: Duration?
            var serverConnected = false
            func drain() {
                while let output = client.pollOutput() {
                    switch output {
                    case .send(let datagram): pair.controlling.send(datagram)
                    case .connected: if let startedAt, tookFor == nil { tookFor = pair.clock.now().since(startedAt) }
                    default: break
                    }
                }
                while let output = server.pollOutput() {
                    switch output {
                    case .send(let datagram): pair.controlled.send(datagram)
                    case .connected: serverConnected = true
                    default: break
                    }
                }
            }
            pair.controlling.onState = { state in
                guard state == .connected, startedAt == nil else { return }
                startedAt = pair.clock.now()
                client.start(now: startedAt!)
                drain()
            }
            pair.controlling.onDatagram = { client.handle(datagram: $0, now: pair.clock.now()); drain() }
            pair.controlled.onDatagram = { server.handle(datagram: $0, now: pair.clock.now()); drain() }
            let timers = pair.loop.schedule(every: .milliseconds(10)) {
                client.handleTimeout(now: pair.clock.now())
                server.handleTimeout(now: pair.clock.now())
                drain()
                return true
            }
            pair.start()
            let done = pair.run(for: .seconds(5)) { tookFor != nil && serverConnected }
            timers.cancel()
            pair.close()
            #expect(done, "run \(run): the handshake did not finish")
            guard let tookFor else { return }
            slowest = max(slowest, tookFor)
        }
        #expect(slowest < .milliseconds(200), "slowest handshake: \(slowest)")
    }

    /// DTLS sent before ICE has even started waits, in order; past the bound the oldest is
    /// dropped and counted. SRTP and SRTCP are dropped at once (late media is worth nothing, and a
    /// late sender report would make the round trip measured from it late too).
    @Test func datagramsSentBeforeAnyPairWaitAndTheOverflowIsCounted() throws {
        let pair = try Pair()
        let extra = 6
        for i in 0..<(DatagramBacklog.maxDatagrams + extra) { pair.controlled.send([22, UInt8(i)]) }
        pair.controlled.send([0x80, 111, 0, 1])  // RTP
        pair.controlled.send([0x80, 200, 0, 6])  // RTCP sender report
        #expect(pair.controlled.queuedDatagrams == DatagramBacklog.maxDatagrams)
        #expect(pair.controlled.droppedDatagrams == extra)
        #expect(pair.controlled.droppedMedia == 2)
        var received: [UInt8] = []
        pair.controlling.onDatagram = { received.append($0.last ?? 0) }
        pair.start()
        #expect(pair.run(for: .seconds(3)) { received.count == DatagramBacklog.maxDatagrams })
        #expect(received == (extra..<(DatagramBacklog.maxDatagrams + extra)).map { UInt8($0) })
        #expect(pair.controlled.queuedDatagrams == 0)
        pair.close()
    }
}
