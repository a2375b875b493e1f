import ConfCore
import ConfCrypto
import ConfIO
import ConfSession
import ConfWire

/// The peer connections of one participant: takes the room's events from the rendezvous, runs the
/// mesh's negotiation, and owns one `PeerLink` (ICE, DTLS, SRTP) per other participant. Reports
/// `peer-connected` and `peer-disconnected`.
///
/// Threading: the event loop thread only.
final class CallController {
    struct Settings {
        var iceServers: [IceServerAddress]
        var connectTimeout: Duration
        /// Chat messages to send to each peer as soon as its chat channel opens (`--say`).
        var say: [String]
        var relayOnly: Bool
        /// A scripted `conf join` that finds others in the room and connects to none of them
        /// ends (exit 8); a host, or anyone alone in its room at first, never leaves because of
        /// another participant's failure.
        var leavesWhenNobodyConnects: Bool
    }

    static let chatLabel = "chat"
    /// conf's own state messages between participants (mute), JSON text.
    static let controlLabel = "conf-control"

    /// This participant's mute state, told to every peer.
    var audioMuted = false
    var videoMuted = false

    /// A vanished peer is declared gone after this long without an authenticated packet.
    static let silenceLimit: Duration = .milliseconds(2500)
    static let reportInterval: Duration = .milliseconds(500)
    static let restartDelay: Duration = .seconds(2)
    /// A link that keeps failing is set up again at most this many times in a row (2, 4, 8, 16 s
    /// apart), then left alone until the peer leaves and comes back.
    static let maxRestarts = 4

    let loop: EventLoop
    let reporter: EventReporter
    private let certificate: DTLSCertificate
    let clock = SystemClock()
    var settings: Settings
    private let sendSignal: (ParticipantID, JSONValue) -> Void
    /// Called with whether some link had no network path at all (ICE never found one).
    private let onNoPeerConnected: (_ noPath: Bool) -> Void
    /// Some link timed out because ICE found no path (for the final advice).
    private var sawNoPath = false
    private var random = KernelRandom()
    private var mesh: Mesh!
    private var role = Role.publisher
    private var roster: [ParticipantID: Participant] = [:]
    var links: [ParticipantID: PeerLink] = [:]
    private var everConnected = false
    /// Restarts in a row per peer since its link last connected.
    private var restarts: [ParticipantID: Int] = [:]
    private var ticker: Timer?
    private var connectDeadline: Timer?
    private let addresses: [String]
    /// Set by the owner once the role is known (a listener sends nothing).
    var audio: AudioPipeline?
    var video: VideoPipeline?
    /// `--record`'s files, shared by both pipelines.
    var recordings: Recordings?
    /// Kept alive with the call: the stdin command reader.
    var commands: LineReader?
    /// `say` commands typed before any chat channel was open: sent when the first one opens.
    var heldChat: [String] = []
    /// Set when we start leaving: links that end from then on end because of us, and are not
    /// reported as the peer going away.
    var isLeaving = false
    private var mediaTicker: Timer?
    var statsTimer: Timer?
    var terminalView: TerminalView?
    var viewTimer: Timer?

    init(loop: EventLoop, reporter: EventReporter, certificate: DTLSCertificate, settings: Settings,
         sendSignal: @escaping (ParticipantID, JSONValue) -> Void, onNoPeerConnected: @escaping (_ noPath: Bool) -> Void) {
        self.loop = loop
        self.reporter = reporter
        self.certificate = certificate
        self.settings = settings
        self.sendSignal = sendSignal
        self.onNoPeerConnected = onNoPeerConnected
        addresses = NetworkInterfaces.reachableIPv4Addresses() + ["127.0.0.1"]
    }

    /// ICE servers the rendezvous handed out, added to those from the command line.
    func addIceServers(_ servers: [IceServerAddress]) {
        settings.iceServers += servers
    }

    // MARK: Room events

    func joined(_ joined: ServerMessage.Joined) {
        role = joined.role
        mesh = Mesh(sessionID: random.next() >> 1) { [unowned self] peer, controlling in self.openLink(to: peer, controlling: controlling) }
        ticker = loop.schedule(every: .milliseconds(100)) { [weak self] in self?.tick() ?? false }
        mediaTicker = loop.schedule(every: .milliseconds(5)) { [weak self] in
            guard let self else { return false }
            let now = self.clock.now()
            let links = Array(self.links.values)
            self.audio?.tick(now: now, links: links)
            self.video?.tick(now: now, links: links)
            return true
        }
        for peer in joined.peers { roster[peer.id] = peer }
        mesh.joined(peers: joined.peers)
        drainMesh()
        if settings.leavesWhenNobodyConnects && !joined.peers.isEmpty { armConnectTimeout() }
    }

    func peerJoined(_ peer: Participant) {
        roster[peer.id] = peer
        restarts[peer.id] = nil
        mesh.peerJoined(peer)
        drainMesh()
    }

    func peerLeft(_ id: ParticipantID) {
        mesh.peerLeft(id)
        drainMesh()
        roster[id] = nil
        restarts[id] = nil
    }

    func signal(from id: ParticipantID, _ payload: JSONValue) {
        do {
            mesh.received(try PeerSignal(json: payload), from: id)
        } catch {
            reporter.note("conf: ignored a bad signal from \(id): \(error)")
            return
        }
        drainMesh()
    }

    /// Closes every link (we are leaving); `done` once TURN allocations are released, or after
    /// half a second at most.
    func close(then done: @escaping () -> Void) {
        ticker?.cancel()
        mediaTicker?.cancel()
        statsTimer?.cancel()
        viewTimer?.cancel()
        terminalView?.stop()
        reporter.humanSink = nil
        commands?.stop()
        audio?.close(links: Array(links.values))
        video?.close(links: Array(links.values))
        recordings?.close()
        connectDeadline?.cancel()
        var waiting = links.count
        var finished = false
        let finish = {
            if !finished {
                finished = true
                done()
            }
        }
        for link in links.values {
            teardown(link) {
                waiting -= 1
                if waiting == 0 { finish() }
            }
        }
        links.removeAll()
        if waiting == 0 { finish() } else { loop.schedule(after: .milliseconds(500), finish) }
    }

    // MARK: Mesh

    private func openLink(to id: ParticipantID, controlling: Bool) -> LocalEndpoint {
        let peer = roster[id] ?? Participant(id: id, name: id.rawValue, role: .publisher)
        if let old = links.removeValue(forKey: id) {  // a restart: the old link goes
            if old.phase == .connected { report(disconnected: old, code: .restarting, reason: "the peer is setting the link up again") }
            old.audioIn?.playback?.close()  // its recordings go on in the new link's
            teardown(old)
        }
        let audioSSRC = UInt32(truncatingIfNeeded: random.next()), videoSSRC = UInt32(truncatingIfNeeded: random.next())
        do {
            let transport = try IceTransport(loop: loop, controlling: controlling, addresses: addresses, servers: settings.iceServers,
                                             relayOnly: settings.relayOnly)
            let link = PeerLink(peer: peer, transport: transport, localSSRC: audioSSRC, now: clock.now())
            link.videoSSRC = videoSSRC
            links[id] = link
            transport.onCandidate = { [weak self] candidate in self?.mesh.localCandidate(candidate, for: id); self?.drainMesh() }
            transport.onGatheringDone = { [weak self] in self?.mesh.localGatheringDone(for: id); self?.drainMesh() }
            transport.onState = { [weak self] state in self?.iceState(state, link: link) }
            transport.onSelectedPair = { pair in link.selectedPair = pair }
            transport.onDatagram = { [weak self] datagram in self?.received(datagram, link: link) }
            return LocalEndpoint(iceUfrag: transport.localUfrag, icePwd: transport.localPwd, fingerprint: certificate.fingerprint,
                                 role: role, audioSSRC: audioSSRC, videoSSRC: videoSSRC)
        } catch {
            reporter.note("conf: cannot start ICE for \(peer.name): \(error)")
            return LocalEndpoint(iceUfrag: "none", icePwd: String(repeating: "x", count: 22), fingerprint: certificate.fingerprint,
                                 role: role, audioSSRC: audioSSRC, videoSSRC: videoSSRC)
        }
    }

    private func drainMesh() {
        while let output = mesh.pollOutput() {
            switch output {
            case .open(let id, _):
                // Made in openLink; gathering waits until the mesh knows the peer, since libnice
                // may report host candidates at once.
                links[id]?.transport.gather()
            case .signal(let id, let signal):
                sendSignal(id, signal.json)
            case .negotiated(let id, let negotiated):
                guard let link = links[id] else { continue }
                link.transport.setRemoteCredentials(ufrag: negotiated.remoteUfrag, pwd: negotiated.remotePwd)
                for candidate in negotiated.remoteCandidates { link.transport.addRemote(candidate) }
                link.remoteFingerprints = negotiated.remoteFingerprints
                link.sctpPort = negotiated.sctpPort
                link.audio = negotiated.audio
                link.video = negotiated.video
                link.isOfferer = negotiated.iceControlling
                do {
                    link.dtls = try DTLSEndpoint(certificate: certificate, role: negotiated.dtlsRole, remoteFingerprints: negotiated.remoteFingerprints)
                } catch {
                    disconnect(link, code: .dtlsFailed, reason: "cannot set up DTLS: \(error)")
                    continue
                }
                startDTLSIfReady(link)
            case .remoteCandidate(let id, let candidate):
                links[id]?.transport.addRemote(candidate)
            case .remoteCandidatesDone(let id):
                links[id]?.transport.remoteGatheringDone()
            case .candidateLimitReached(let id, let limit):
                let name = roster[id]?.name ?? id.rawValue
                reporter.note("conf: \(name) (\(id)) sent more than \(limit) ICE candidates for one link; the rest are ignored")
            case .failed(let id, let error):
                if let link = links[id] { disconnect(link, code: .negotiationFailed, reason: error.description) }
            case .close(let id):
                if let link = links.removeValue(forKey: id) {
                    link.audioIn?.playback?.close()
                    recordings?.finish(id)
                    if link.phase == .connected { report(disconnected: link, code: .left, reason: "left") }
                    link.phase = .disconnected
                    teardown(link)
                }
            }
        }
    }

    // MARK: Transport and DTLS

    private func iceState(_ state: IceTransport.State, link: PeerLink) {
        switch state {
        case .checking: break
        case .connected:
            link.iceConnected = true
            if link.iceConnectedAt == nil { link.iceConnectedAt = clock.now() }
            startDTLSIfReady(link)
        case .failed:
            if link.phase == .connected {
                disconnect(link, code: .pathFailed, reason: "the network path failed (ICE)")
            } else {
                sawNoPath = true
                disconnect(link, code: .noPath, reason: Self.noPathAdvice)
            }
        }
    }

    private func startDTLSIfReady(_ link: PeerLink) {
        guard link.iceConnected, let dtls = link.dtls, dtls.role == .client, link.dtlsStartedAt == nil else { return }
        let now = clock.now()
        link.dtlsStartedAt = now
        dtls.start(now: now)
        drainDTLS(link)
    }

    private func received(_ datagram: [UInt8], link: PeerLink) {
        guard link.phase != .disconnected else { return }
        let now = clock.now()
        switch PacketKind(classifying: datagram) {
        case .dtls:
            guard let dtls = link.dtls else { return }
            if link.dtlsStartedAt == nil { link.dtlsStartedAt = now }
            dtls.handle(datagram: datagram, now: now)
            if dtls.isConnected { link.lastHeard = now }
            drainDTLS(link)
        case .rtcp:
            guard let plain = link.srtp?.unprotectRTCP(datagram) else { return }
            link.lastHeard = now
            link.heardSRTP = true
            guard let packets = RTCPPacket.parseCompound(plain) else { return }
            for packet in packets {
                switch packet {
                case .pictureLossIndication: video?.keyFrameRequested()
                case .negativeAcknowledgement(_, _, let lost): video?.resend(lost, on: link)
                default: break
                }
            }
            if let answer = link.meter.received(packets, now: now) { send(answer, on: link) }
            if !link.announced {
                if link.meter.latest != nil {
                    announce(link)
                } else {
                    // The peer has its keys now (it sent this): our earlier SR may have come too soon.
                    send(link.meter.senderReport(now: now), on: link)
                }
            }
        case .rtp:
            // The listen-only role is enforced here too, whatever was negotiated: a listener's
            // media is dropped unread (the rendezvous's roster says who listens).
            if link.peer.role == .listener {
                link.droppedFromListener += 1
                if link.droppedFromListener == 1 { reportIgnoredListener(link, what: "media") }
                return
            }
            guard let plain = link.srtp?.unprotectRTP(datagram) else { return }
            link.lastHeard = now
            link.heardSRTP = true
            guard let packet = RTPPacket(bytes: plain) else { return }
            if packet.payloadType == link.video?.payloadType {
                for feedback in video?.received(packet, on: link, now: now) ?? [] { send(feedback, on: link) }
            } else {
                audio?.received(packet, on: link, now: now)
            }
        case .stun, .turnChannel, .unknown:
            break
        }
    }

    func drainDTLS(_ link: PeerLink) {
        guard let dtls = link.dtls else { return }
        while let output = dtls.pollOutput() {
            switch output {
            case .send(let datagram):
                if link.dtlsConnectedAt == nil { link.lastHandshakeFlightAt = clock.now() }
                link.transport.send(datagram)
            case .connected(let keys):
                do {
                    link.srtp = try SRTPSession(keys: keys)
                } catch {
                    disconnect(link, code: .dtlsFailed, reason: "cannot set up SRTP: \(error)")
                    return
                }
                connected(link)
                startDataChannels(link)
            case .applicationData(let packet):
                link.dataChannels?.receive(packet)
            case .failed(let reason):
                disconnect(link, code: .dtlsFailed, reason: reason)
            case .closed:
                disconnect(link, code: .left, reason: "left", restart: false)
            }
        }
    }

    /// DTLS is up: measure a round trip with RTCP before announcing the link (it takes one), with
    /// the handshake's last round trip as a fallback if the peer does not answer sender reports.
    private func connected(_ link: PeerLink) {
        let now = clock.now()
        link.phase = .connected
        link.lastHeard = now
        link.lastReportSent = now
        link.dtlsConnectedAt = now
        everConnected = true
        restarts[link.peer.id] = nil
        let fallback = link.handshakeRTT(connectedAt: now)
        send(link.meter.senderReport(now: now), on: link)
        loop.schedule(after: .milliseconds(500)) { [weak self] in
            guard let self, !link.announced, link.phase == .connected else { return }
            self.announce(link, fallbackRTT: fallback)
        }
    }

    private func announce(_ link: PeerLink, fallbackRTT: Double? = nil) {
        link.announced = true
        let rtt = link.meter.latest?.milliseconds ?? fallbackRTT ?? 0
        let sas = link.dtls?.sasWords?.joined(separator: " ") ?? ""
        let local = link.selectedPair.map { "\($0.local.address):\($0.local.port)" } ?? ""
        let remote = link.selectedPair.map { "\($0.remote.address):\($0.remote.port)" } ?? ""
        let rounded = (rtt * 10).rounded() / 10
        func since(_ instant: Instant?) -> JSONValue? {
            instant.map { .number(($0.since(link.openedAt).milliseconds * 10).rounded() / 10) }
        }
        // Milliseconds from the link's creation (offer made or expected) to each step.
        let setup = JSONValue.object(["ice": since(link.iceConnectedAt), "dtls": since(link.dtlsConnectedAt), "connected": since(clock.now())])
        reporter.emit(
            .object(["type": "peer-connected", "peer": .string(link.peer.id.rawValue), "name": .string(link.peer.name),
                     "path": .string(link.path), "local": .string(local), "remote": .string(remote),
                     "rtt_ms": .number(rounded), "sas": .string(sas), "setup_ms": setup]),
            human: reporter.style.green("=") + " connected to \(link.peer.name) (\(link.peer.id)): \(link.path) \(local) ↔ \(remote), "
                + "rtt \(rounded) ms; check words with them: \(reporter.style.bold(sas))")
    }

    /// What to tell the user when ICE found no pair at all.
    static let noPathAdvice = "no network path to the peer: no ICE check was answered, so UDP between you is blocked or "
        + "filtered (a firewall, or NATs that need a relay) — try --turn USER:PASS@HOST:PORT with a TURN server both of you can reach (add ?transport=tcp to reach it over TCP)"

    /// The link to a peer failed or ended: reported, its ICE agent closed at once (no more checks
    /// toward the peer's candidates), and set up again later when it can be.
    func disconnect(_ link: PeerLink, code: DisconnectCode, reason: String, restart: Bool = true) {
        guard link.phase != .disconnected else { return }
        report(disconnected: link, code: code, reason: reason)
        link.phase = .disconnected
        link.dataChannels?.close()
        link.dataChannels = nil
        link.dtls?.close()
        drainDTLSQuietly(link)
        link.transport.close()
        let id = link.peer.id
        guard restart, roster[id] != nil, let mesh else { return }
        if mesh.isOfferer(to: id) {
            // The side that offered sets the link up again (the other answers the new offer),
            // with a growing delay, a bounded number of times in a row.
            let attempt = restarts[id, default: 0]
            guard attempt < Self.maxRestarts else {
                reporter.note("conf: giving up on \(link.peer.name) (\(id)) after \(attempt) new attempts; the call goes on with the others")
                return
            }
            restarts[id] = attempt + 1
            loop.schedule(after: Self.restartDelay * (1 << attempt)) { [weak self] in
                guard let self, self.roster[id] != nil, self.links[id] === link else { return }
                self.mesh.restart(id)
                self.drainMesh()
            }
        } else {
            // The answerer waits for the peer's next offer, which starts a fresh link.
            mesh.abandon(id)
        }
    }

    /// Once per link and kind: a listener sent what its role does not allow; it is dropped.
    func reportIgnoredListener(_ link: PeerLink, what: String) {
        reporter.emit(.object(["type": "listener-ignored", "peer": .string(link.peer.id.rawValue), "what": .string(what)]),
                      human: reporter.style.dim("\(link.peer.name) (\(link.peer.id)) joined to listen only: their \(what) is ignored"))
    }

    private func report(disconnected link: PeerLink, code: DisconnectCode, reason: String) {
        guard !isLeaving else { return }
        if link.phase == .connected && !link.announced { announce(link) }
        let verb = link.phase == .connected ? "lost" : "could not connect to"
        reporter.emit(.object(["type": "peer-disconnected", "peer": .string(link.peer.id.rawValue), "code": .string(code.rawValue),
                               "reason": .string(reason)]),
                      human: reporter.style.red("×") + " \(verb) \(link.peer.name) (\(link.peer.id)): \(reason)")
    }

    private func drainDTLSQuietly(_ link: PeerLink) {
        while let output = link.dtls?.pollOutput() { if case .send(let datagram) = output { link.transport.send(datagram) } }
    }

    private func teardown(_ link: PeerLink, then done: (() -> Void)? = nil) {
        link.dataChannels?.close()
        link.dtls?.close()
        drainDTLSQuietly(link)
        link.transport.close(then: done)
    }

    // MARK: Time

    /// Every 100 ms: DTLS retransmissions, keep-alive reports, silence detection.
    private func tick() -> Bool {
        let now = clock.now()
        for link in links.values {
            if let dtls = link.dtls, let timeout = dtls.timeout, now >= timeout {
                dtls.handleTimeout(now: now)
                drainDTLS(link)
            }
            // Each link gets --connect-timeout to come up; one that does not is reported (the call
            // goes on with the others; with nobody connected at all, the call ends with exit 8).
            if link.phase == .negotiating, now.since(link.openedAt) >= settings.connectTimeout {
                timedOut(link)
                continue
            }
            guard link.phase == .connected else { continue }
            // Until the peer's first SRTP packet its side of the DTLS handshake may still be
            // retrying (our last flight lost, under heavy loss for seconds): it gets the
            // connect timeout, not the silence limit.
            let limit = link.heardSRTP ? Self.silenceLimit : max(Self.silenceLimit, settings.connectTimeout)
            if now.since(link.lastHeard) >= limit {
                disconnect(link, code: .silence, reason: "nothing heard for \(Self.seconds(limit)) s: the peer vanished or the network broke")
                continue
            }
            if !link.announced {
                // The peer may not have had its keys when our first SR came: ask again until answered.
                link.lastReportSent = now
                send(link.meter.senderReport(now: now), on: link)
            } else if now.since(link.lastReportSent) >= reportInterval(for: link) {
                sendReport(link, now: now)
            }
        }
        return true
    }

    /// How often the peer gets a report from us: it is how the peer knows we are there (see
    /// `silenceLimit`). With no audio going out (a listener, muted), four a second, so that even
    /// 30 % loss leaves it hearing from us several times within the limit.
    private func reportInterval(for link: PeerLink) -> Duration {
        link.audio?.sends == true && !audioMuted && audio != nil ? Self.reportInterval : Self.reportInterval / 2
    }

    /// A receiver report twice a second: the peer hears from us even before media flows, which is
    /// how it notices when we are gone.
    private func sendReport(_ link: PeerLink, now: Instant) {
        link.lastReportSent = now
        let out = link.audioOut
        let sent = out.packets > 0 ? (packets: out.packets, octets: out.octets, rtpTimestamp: out.timestamp) : nil
        var reception = link.audioIn?.reception
        send(link.meter.report(now: now, sent: sent, reception: &reception), on: link)
        link.audioIn?.reception = reception
    }

    private func send(_ report: RTCPPacket, on link: PeerLink) {
        if let packet = link.srtp?.protectRTCP(report.bytes) { link.transport.send(packet) }
    }

    /// A link that did not come up within --connect-timeout, reported for what held it up.
    private func timedOut(_ link: PeerLink) {
        let seconds = Self.seconds(settings.connectTimeout)
        if link.remoteFingerprints.isEmpty {
            disconnect(link, code: .connectTimeout, reason: "could not connect within \(seconds) s: the peer never answered the offer")
        } else if !link.iceConnected {
            // Negotiated through the rendezvous (TCP), yet no UDP check came back.
            sawNoPath = true
            disconnect(link, code: .noPath, reason: "could not connect within \(seconds) s: " + Self.noPathAdvice)
        } else {
            disconnect(link, code: .connectTimeout, reason: "could not connect within \(seconds) s: the network path works but the "
                + "encrypted handshake (DTLS) did not finish")
        }
    }

    /// "2" or "2.5": a duration in seconds for people.
    static func seconds(_ duration: Duration) -> String {
        let value = duration.milliseconds / 1000
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// We joined a room with others in it: if no link at all connects in time, the call has failed.
    private func armConnectTimeout() {
        guard connectDeadline == nil, !everConnected, !links.isEmpty else { return }
        connectDeadline = loop.schedule(after: settings.connectTimeout) { [weak self] in
            guard let self, !self.everConnected, !self.links.isEmpty else { return }
            for link in self.links.values where link.phase == .negotiating { self.timedOut(link) }
            self.onNoPeerConnected(self.sawNoPath)
        }
    }
}
