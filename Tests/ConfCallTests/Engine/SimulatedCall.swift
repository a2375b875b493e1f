import ConfCall
import ConfCore
import ConfCrypto
import ConfWire
import Foundation
import SimulatedWallClock

/// Steps 2 to 4 call engines against each other on a manual clock: a simulated rendezvous
/// (joins, leaves, relayed signals), a fake ICE agent per link, and a seeded simulated network
/// between the participants. Nothing here sleeps: time jumps to the next deadline.
final class SimulatedCall {
    let clock = ManualClock(Instant.zero + .seconds(1))
    let network: SimulatedNetwork<ParticipantID>
    private(set) var participants: [Participant] = []
    private var rendezvous: [(at: Instant, order: Int, action: () -> Void)] = []
    private var order = 0
    let rendezvousDelay: Duration = .milliseconds(10)
    /// Runs before each datagram is handed to its participant (a test stalls the machine here).
    var beforeDelivery: ((_ from: ParticipantID, _ to: ParticipantID, _ bytes: [UInt8]) -> Void)?
    /// Whether a datagram arriving now is delivered; the others are lost (a test's firewall).
    var delivers: (_ from: ParticipantID, _ to: ParticipantID, _ bytes: [UInt8]) -> Bool = { _, _, _ in true }
    var random: SeededRandom

    /// Real DTLS is OpenSSL's, its retransmission timer on the simulated clock (OpenSSL reads
    /// gettimeofday, which SimulatedWallClock answers from `clock` while an engine runs), unless
    /// `dtlsTimerInRealTime` (a test of a machine that stalls in real time). `FakeDTLS` is a
    /// handshake of a few bytes, for the runs that need many links.
    enum Handshake { case realDTLS, fakeDTLS }
    let handshake: Handshake
    let dtlsTimerInRealTime: Bool
    /// Where the simulation's wall clock starts: the real one when the call was made.
    private let wallClockStart = simulated_wall_clock_real_now()
    private let clockStart: Instant

    init(seed: UInt64 = 1, handshake: Handshake = .realDTLS, dtlsTimerInRealTime: Bool = false) {
        self.handshake = handshake
        self.dtlsTimerInRealTime = dtlsTimerInRealTime
        clockStart = clock.now()
        let seed = seed &+ Self.seedShift
        random = SeededRandom(seed: seed)
        network = SimulatedNetwork(seed: seed, conditions: LinkConditions(delay: .milliseconds(20)))
    }

    /// `CONF_TEST_SEED_SHIFT=N` moves every simulated call's seed by N: a threshold that holds
    /// only for the seed its test names fails under another (`CONF_TEST_SEED_SHIFT=100 swift test
    /// --filter ConfCallTests`).
    static let seedShift = UInt64(ProcessInfo.processInfo.environment["CONF_TEST_SEED_SHIFT"] ?? "") ?? 0

    var now: Instant { clock.now() }

    @discardableResult
    func add(_ name: String, role: Role = .publisher, configure: (inout CallEngine.Configuration) -> Void = { _ in }) throws -> Participant {
        var configuration = CallEngine.Configuration()
        configuration.connectTimeout = .seconds(10)
        configuration.sendsVideo = true
        configure(&configuration)
        let security: any LinkSecurity = switch handshake {
        case .realDTLS: CertificateSecurity(certificate: try DTLSCertificate())
        case .fakeDTLS: FakeSecurity(seed: random.next())
        }
        let engine = CallEngine(configuration: configuration, security: security,
                                dataChannels: FakeDataChannelFactory(), random: SeededRandom(seed: random.next()))
        let participant = Participant(id: ParticipantID("p\(participants.count + 1)"), name: name, role: role, engine: engine,
                                      address: "10.0.0.\(participants.count + 1)")
        participants.append(participant)
        return participant
    }

    // MARK: The rendezvous

    /// `who` joins now: it learns who is there, they learn of it (after the rendezvous's delay).
    func join(_ who: Participant) {
        let present = participants.filter { $0.inRoom && $0 !== who }
        who.inRoom = true
        who.pending.append(.joined(you: who.id, role: who.role, peers: present.map(\.card)))
        if who.sendsAudio { who.nextAudioAt = now }
        if who.sendsVideo { who.nextVideoAt = now }
        for other in present { relay(to: other, .peerJoined(who.card)) }
    }

    /// `who` leaves the room properly.
    func leave(_ who: Participant) {
        who.pending.append(.leave)
        step(who)
        who.inRoom = false
        for other in participants where other.inRoom { relay(to: other, .peerLeft(who.id)) }
    }

    /// `who` leaves when the rendezvous is gone: nothing relays its leaving.
    func leaveWithoutRendezvous(_ who: Participant) {
        who.pending.append(.leave)
        step(who)
        who.inRoom = false
    }

    /// `who` dies: nothing more from it; the rendezvous sees its connection close.
    func kill(_ who: Participant) {
        who.inRoom = false
        who.frozen = true
        for other in participants where other.inRoom { relay(to: other, .peerLeft(who.id)) }
    }

    /// Every relayed signal arrives twice (a rendezvous or client bug, or a resend after a reconnect).
    var duplicatesSignals = false

    /// The rendezvous is TCP: what is relayed to a frozen participant waits in its socket.
    private func relay(to who: Participant, _ input: CallEngine.Input) {
        let copies = duplicatesSignals && { if case .signal = input { true } else { false } }() ? 2 : 1
        for _ in 0..<copies {
            order += 1
            rendezvous.append((now + rendezvousDelay, order, { [weak who] in
                guard let who, who.inRoom else { return }
                who.pending.append(input)
            }))
        }
    }

    /// SIGSTOP: `who` runs nothing and loses what the network brings, until `thaw`.
    func freeze(_ who: Participant) { who.frozen = true }

    /// SIGCONT: what waited in the socket is read first, then timers run; `timersFirst`: the other
    /// way round, as a GLib loop may dispatch a timer and a socket that are ready at once, with
    /// `eachDatagramTakes` of the clock to hand in each waiting datagram (a driver decoding video).
    func thaw(_ who: Participant, timersFirst: Bool = false, eachDatagramTakes: Duration = .zero) {
        who.frozen = false
        if timersFirst {
            who.pending.append(.timeout)
            step(who)
        }
        let waiting = who.socketBuffer
        who.socketBuffer = []
        for datagram in waiting {
            received(datagram.bytes, from: datagram.from, at: who)
            guard eachDatagramTakes > .zero else { continue }
            step(who)
            clock.advance(by: eachDatagramTakes)
        }
        if who.sendsAudio { who.nextAudioAt = now }
    }

    // MARK: Running

    /// Runs until `condition` holds or `limit` of virtual time passes; whether it held.
    @discardableResult
    func run(for limit: Duration, until condition: () -> Bool = { false }) -> Bool {
        let end = now + limit
        for participant in participants { step(participant) }
        var iterations = 0
        while !condition() {
            iterations += 1
            precondition(iterations < 2_000_000, "the simulation does not settle")
            guard let next = nextTime(), next <= end else {
                clock.advance(by: end.since(now))
                return condition()
            }
            if next > now { clock.advance(by: next.since(now)) }
            runDue()
        }
        return true
    }

    private func nextTime() -> Instant? {
        var times: [Instant] = rendezvous.map(\.at)
        if let delivery = network.nextDelivery { times.append(delivery) }
        for participant in participants where !participant.frozen && participant.inRoom {
            if participant.sendsVideo, let at = participant.nextVideoAt { times.append(at) }
            if let deadline = participant.engine.nextDeadline() { times.append(deadline) }
            if participant.sendsAudio, let at = participant.nextAudioAt { times.append(at) }
            for agent in participant.agents.values where agent.canCheck { times.append(agent.nextCheckAt ?? now) }
            if !participant.pending.isEmpty { times.append(now) }
        }
        return times.min()
    }

    private func runDue() {
        let due = rendezvous.filter { $0.at <= now }.sorted { ($0.at, $0.order) < ($1.at, $1.order) }
        rendezvous.removeAll { $0.at <= now }
        for item in due { item.action() }
        for delivery in network.deliver(upTo: now) {
            beforeDelivery?(delivery.from, delivery.to, delivery.bytes)
            guard delivers(delivery.from, delivery.to, delivery.bytes), let to = participant(delivery.to), to.inRoom else { continue }
            if to.frozen {
                if to.socketBuffer.count < 256 { to.socketBuffer.append((delivery.from, delivery.bytes)) }
                continue
            }
            received(delivery.bytes, from: delivery.from, at: to)
        }
        for participant in participants where !participant.frozen && participant.inRoom {
            if participant.sendsAudio, let at = participant.nextAudioAt, at <= now {
                participant.pending.append(.audioFrame(opus: participant.audioPayload, level: 30))
                participant.nextAudioAt = at + participant.audioInterval
            }
            if participant.sendsVideo, let at = participant.nextVideoAt, at <= now, !participant.videoWanted {
                participant.nextVideoAt = at + .milliseconds(66)  // the camera's picture, for nobody
            } else if participant.sendsVideo, let at = participant.nextVideoAt, at <= now {
                participant.pending.append(participant.layeredVideo?.nextFrame(captured: at, bitrates: participant.videoBitrates,
                                                                                keyFrameRequests: participant.keyFrameRequests + participant.keyFramesOnWanted)
                    ?? .videoFrame(participant.nextVideoFrame(), captured: at))
                if let small = participant.smallVideo, at >= participant.smallVideoFrom ?? at {
                    let asked = participant.smallVideoBitrates.compactMap { figure in figure.kbps.map { (figure.at, $0) } }
                    participant.pending.append(small.nextFrame(captured: at, bitrates: asked, keyFrameRequests: participant.smallKeyFrameRequests + participant.keyFramesOnWanted,
                                                               encoding: .small))
                }
                participant.nextVideoAt = at + .milliseconds(66)
            }
            runChecks(participant)
            participant.pending.append(.timeout)
            step(participant)
        }
    }

    /// Feeds what is pending and carries out every output, until both are empty.
    func step(_ participant: Participant) {
        if !dtlsTimerInRealTime {
            simulated_wall_clock_set(wallClockStart + now.since(clockStart).nanosecondsClamped / 1000)
        }
        defer { simulated_wall_clock_clear() }
        while true {
            if !participant.pending.isEmpty {
                let input = participant.pending.removeFirst()
                participant.engine.handle(input, now: now)
            }
            while let output = participant.engine.pollOutput() { perform(output, for: participant) }
            if participant.pending.isEmpty { return }
        }
    }

    private func perform(_ output: CallEngine.Output, for participant: Participant) {
        switch output {
        case .startIce(let id, let credentials, let controlling, let relayOnly):
            participant.relayOnlyAsked.append(relayOnly)
            // Answered after the outputs already queued, as the real driver does.
            if participant.iceUnavailable {
                participant.pending.append(.iceUnavailable(id, reason: "no ICE here"))
                return
            }
            let agent = FakeIceAgent(credentials: credentials, controlling: controlling, address: participant.address)
            agent.deaf = participant.nextAgentIsDeaf || (participant.deafUnlessRelayOnly && !relayOnly)
            participant.nextAgentIsDeaf = false
            participant.agents[id] = agent
            if participant.holdsAgentAnswers { participant.agentAnswersHeld.append(.iceStarted(id)) } else { participant.pending.append(.iceStarted(id)) }
        case .gather(let id):
            guard let agent = participant.agents[id] else { return }
            participant.pending.append(.localCandidate(id, agent.candidate))
            participant.pending.append(.localGatheringDone(id))
        case .setRemoteCredentials(let id, let ufrag, _):
            participant.agents[id]?.remoteUfrag = ufrag
            participant.agents[id]?.startedChecking = now
        case .addRemoteCandidate(let id, let candidate):
            participant.agents[id]?.remoteCandidates.append(candidate)
        case .remoteCandidatesDone:
            break
        case .closeIce(let id):
            participant.agents[id] = nil
        case .transmit(let id, let bytes):
            guard participant.agents[id]?.state == .connected else { return }
            if participant.withholdsRTCP && PacketKind(classifying: bytes) == .rtcp { return }
            // RTPFB (205) with FMT 15 first in the compound packet: transport feedback.
            if PacketKind(classifying: bytes) == .rtcp, bytes[1] == 205, bytes[0] & 0x1F == 15 {
                participant.transportFeedbackSent[id, default: 0] += 1
            }
            network.send(bytes, from: participant.id, to: id, now: now)
        case .signal(let id, let payload):
            participant.signalsSent += 1
            guard let to = self.participant(id) else { return }
            let from = participant.id
            relay(to: to, .signal(from: from, payload))
        case .event(let event):
            participant.events.append((now, event))
        case .note(let note):
            participant.notes.append(note)
        case .peerSaidGoodbye(let id):
            participant.goodbyes.append(id)
        case .audio(let id, let audio, let muted):
            participant.audioFrames[id, default: 0] += 1
            if muted { participant.mutedAudioFrames[id, default: 0] += 1 }
            switch audio {
            case .frame: participant.receivedAudioFrames[id, default: 0] += 1
            case .continuation:
                participant.receivedAudioFrames[id, default: 0] += 1
                participant.receivedAudioContinuations[id, default: 0] += 1
            case .lost: break
            }
        case .video(let id, _, _):
            participant.videoFramesAt[id, default: []].append(now)
            participant.videoFrames[id, default: 0] += 1
        case .keyFrameRequested:
            participant.keyFrameRequests += 1
            participant.keyFramesAskedAt.append(now)
        case .videoBitrate(let kbps):
            participant.videoBitrates.append((now, kbps))
        case .smallVideoBitrate(let kbps):
            participant.smallVideoBitrates.append((now, kbps))
            if kbps != nil, participant.smallEncoderFails {
                participant.pending.append(.smallVideoUnavailable)  // after the outputs queued, as the driver does
            } else if kbps == nil { participant.smallVideo = nil } else if participant.smallVideo == nil {
                participant.smallVideo = LayeredVideoSource(startKbps: kbps!)
                participant.smallVideoFrom = now + participant.smallEncoderStartsAfter
                participant.smallKeyFrameRequests = 0
            }
        case .smallKeyFrameRequested:
            participant.smallKeyFrameRequests += 1
        case .videoWanted(let wanted):
            // As the pipeline: nothing encoded meanwhile, a key frame first after.
            if wanted && !participant.videoWanted { participant.keyFramesOnWanted += 1 }
            participant.videoWanted = wanted
            participant.videoWantedSaid.append((now, wanted))
        case .audioEncoding:
            break
        case .callFailed(let noPath):
            participant.failed = noPath != nil
        }
    }

    private func runChecks(_ participant: Participant) {
        for (id, agent) in participant.agents where agent.canCheck {
            if let started = agent.startedChecking, now.since(started) >= FakeIceAgent.failAfter {
                agent.state = .failed
                participant.pending.append(.iceState(id, .failed))
                continue
            }
            if (agent.nextCheckAt ?? now) <= now {
                agent.nextCheckAt = now + FakeIceAgent.checkInterval
                network.send(agent.check(answer: false), from: participant.id, to: id, now: now)
            }
        }
    }

    private func received(_ bytes: [UInt8], from: ParticipantID, at participant: Participant) {
        guard let agent = participant.agents[from] else { return }
        if PacketKind(classifying: bytes) == .stun {
            let (forUs, answer) = agent.accepts(bytes)
            guard forUs else { return }
            if !answer, agent.remoteUfrag != nil { network.send(agent.check(answer: true), from: participant.id, to: from, now: now) }
            if agent.state == .checking, !agent.deaf, agent.remoteUfrag != nil, let remote = agent.remoteCandidates.first {
                agent.state = .connected
                participant.pending.append(.selectedPair(from, CandidatePair(local: agent.candidate, remote: remote)))
                participant.pending.append(.iceState(from, .connected))
            }
            return
        }
        guard agent.state == .connected || agent.deaf else { return }
        participant.pending.append(.datagram(from: from, bytes))
    }

    func participant(_ id: ParticipantID) -> Participant? { participants.first { $0.id == id } }

    /// Whether every pair of the given participants has a connected link both ways.
    func fullMesh(_ group: [Participant]) -> Bool {
        for a in group { for b in group where a !== b { if !a.connected(to: b) { return false } } }
        return true
    }
}

extension SimulatedCall.Participant {
    var card: ConfWire.Participant { ConfWire.Participant(id: id, name: name, role: role) }
}
