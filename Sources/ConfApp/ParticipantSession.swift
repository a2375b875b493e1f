import ConfCall
import ConfCore
import ConfIO
import ConfSession
import ConfWire

/// One participant's presence in a room: connects to the rendezvous, joins, reports who comes and
/// goes, keeps the connection alive, and leaves on request, at the end of `duration`, or when the
/// connection ends.
///
///     connecting ──open──▶ joining ──joined──▶ in room ──leave()──▶ leaving ──closed──▶ ended
///          │                  │                 │  ▲
///          └──────────────────┴── failure ──────┼──┼───────────────────────────────────▶ ended
///                                  connection lost │ resumed (same seat)
///                                               ▼  │
///                                              away ──resume refused──▶ detached ──no link left──▶ ended
///                                               │                          ▲
///                                               └─ nobody connected 30 s ──┼──▶ ended (exit 6)
///                                      in room ──host left (room closed)───┘
///
/// Away and detached, the peer links stay up: the call goes on with those connected; only
/// newcomers (and links that need signalling to come back) wait for the rendezvous.
///
/// Threading: lives on the `EventLoop` thread.
final class ParticipantSession {
    enum Phase { case idle, connecting, joining, inRoom, away, resuming, detached, leaving, ended }

    private let loop: EventLoop
    private let client: RendezvousClient
    private let reporter: EventReporter
    private let room: RoomID
    private let pin: Pin
    private let name: String
    private let duration: Duration?
    private let clock = SystemClock()
    private let onEnd: (Result<CallEvent.LeaveReason, CommandFailure>) -> Void
    private(set) var phase = Phase.idle
    private var me: ParticipantID?
    private var peers: [ParticipantID: Participant] = [:]
    /// Set by `leave(reason:)` before the phase becomes `.leaving`, where it is read.
    private var leaveReason = CallEvent.LeaveReason.command
    private var lastHeard = Instant.zero
    private var timers: [Timer] = []
    /// Set when the server said why the room ended, before closing.
    private var roomClosedReason: String?
    /// From `joined`: takes our seat back after the connection to the rendezvous is lost.
    private var resumeToken: String?
    private var backoff = ReconnectBackoff()
    private var random = KernelRandom()
    /// Which connection attempt is current: callbacks from older ones are ignored.
    private var attempt = 0
    private var pingTimer: Timer?
    private var awayTimer: Timer?
    private var reconnectTimer: Timer?

    /// How many peer links carry the call now; asked while the rendezvous is away or gone.
    var connectedPeers: () -> Int = { 0 }
    /// Whether the link to this peer carries the call now.
    var isConnected: (ParticipantID) -> Bool = { _ in false }

    /// The room as it happens, for the peer connections.
    var onJoined: ((ServerMessage.Joined) -> Void)?
    var onPeerJoined: ((Participant) -> Void)?
    var onPeerLeft: ((ParticipantID) -> Void)?
    var onSignal: ((ParticipantID, JSONValue) -> Void)?
    /// We start leaving (a command, a signal, the duration): what ends after this is our doing.
    var onLeaving: (() -> Void)?

    /// The client pings this often; the server drops clients silent for 45 s.
    static let pingInterval: Duration = .seconds(15)
    /// No message (pongs included) from the server for this long: the connection is dead.
    static let serverSilenceLimit: Duration = .seconds(40)
    /// With the rendezvous away and no peer connected for this long, the session ends (exit 6).
    static let awayAloneLimit: Duration = .seconds(30)

    init(loop: EventLoop, client: RendezvousClient, reporter: EventReporter, room: RoomID, pin: Pin, name: String,
         duration: Duration?, onEnd: @escaping (Result<CallEvent.LeaveReason, CommandFailure>) -> Void) {
        self.loop = loop
        self.client = client
        self.reporter = reporter
        self.room = room
        self.pin = pin
        self.name = name
        self.duration = duration
        self.onEnd = onEnd
    }

    func start() {
        phase = .connecting
        connect()
    }

    private func connect() {
        attempt += 1
        let current = attempt
        client.connect(
            opened: { [weak self] failure in if self?.attempt == current { self?.opened(failure) } },
            message: { [weak self] text in if self?.attempt == current { self?.received(text) } },
            closed: { [weak self] code, reason in if self?.attempt == current { self?.closed(code: code, reason: reason) } })
    }

    /// Leaves the room cleanly: the others are told at once.
    func leave(reason: CallEvent.LeaveReason) {
        switch phase {
        case .idle, .ended: return
        case .connecting, .joining, .away, .resuming, .detached:
            leaveReason = reason
            end(.success(reason))
        case .inRoom:
            leaveReason = reason
            phase = .leaving
            onLeaving?()
            client.send(.leave)
            client.close(code: 1000, reason: "left")
            // If the close handshake does not finish, do not hang on it.
            timers.append(loop.schedule(after: .seconds(2)) { [weak self] in self?.end(.success(reason)) })
        case .leaving: return
        }
    }

    /// Leaves the room because the call failed; the session ends with `failure`.
    func leave(failing failure: CommandFailure) {
        guard phase != .ended else { return }
        if phase == .inRoom { client.send(.leave) }
        end(.failure(failure))
    }

    /// A publisher's answer to a knock; false when not in a room. The rendezvous says if it refuses.
    func answer(_ knock: KnockID, admit: Bool) -> Bool {
        guard phase == .inRoom else { return false }
        client.send(admit ? .admit(knock) : .deny(knock))
        return true
    }

    func sendSignal(to peer: ParticipantID, _ payload: JSONValue) {
        guard phase == .inRoom else { return }
        client.send(.signal(to: peer, payload: payload))
    }

    private func opened(_ failure: RendezvousClientError?) {
        if phase == .away {
            guard failure == nil, let resumeToken else { return scheduleReconnect() }
            phase = .resuming
            lastHeard = clock.now()
            client.send(.resume(token: resumeToken))
            return
        }
        guard phase == .connecting else { return }
        if let failure { return end(.failure(Self.describe(failure, address: client.address))) }
        phase = .joining
        lastHeard = clock.now()
        client.send(.join(room: room, pin: pin, name: name))
    }

    private func received(_ text: String) {
        lastHeard = clock.now()
        let message: ServerMessage
        do {
            message = try ServerMessage(text: text)
        } catch {
            reporter.note("conf: ignored a message from the rendezvous: \(error)")
            return
        }
        switch message {
        case .joined(let joined) where phase == .resuming:
            resumed(joined)
        case .joined(let joined):
            guard phase == .joining else { return }
            phase = .inRoom
            me = joined.you
            resumeToken = joined.resumeToken
            for peer in joined.peers { peers[peer.id] = peer }
            reportJoined(joined)
            startTimers()
            onJoined?(joined)
        case .peerJoined(let peer):
            arrived(peer)
        case .peerLeft(let id):
            departed(id)
        case .signal(let from, let payload):
            guard phase == .inRoom else { return }
            onSignal?(from, payload)
        case .error(let code, let text):
            if phase == .resuming {
                // resume-refused, or a rendezvous that does not know `resume`: the seat is gone.
                detach(.seatGone(code, message: text))
            } else if phase == .joining {
                end(.failure(CommandFailure(ExitCode(code), code: code.rawValue, Self.explain(code, text, room: room))))
            } else {
                reporter.emit(.error(.rendezvous(code, message: text)))
            }
        case .pong:
            break
        case .roomClosed(let reason):
            roomClosedReason = reason
        case .knocking(let text):
            guard phase == .joining else { return }
            reporter.emit(.knocking(room: room, message: text))
        case .knock(let knock):
            reporter.emit(.knock(knock))
        case .knockEnded(let id, let outcome):
            reporter.emit(.knockEnded(id, outcome: outcome))
        }
    }

    private func closed(code: UInt16, reason: String) {
        switch phase {
        case .ended, .detached: return
        case .leaving: end(.success(leaveReason))
        case .away: scheduleReconnect()
        case .resuming: lost(.closedWhileResuming)
        case .inRoom:
            if roomClosedReason == "host-left" {
                guard connectedPeers() > 0 else { return end(.success(.hostLeft)) }
                return detach(.hostLeft)
            }
            lost(.closed(code: code, reason: reason))
        case .idle, .connecting, .joining:
            if let roomClosedReason {
                if roomClosedReason == "host-left" { return end(.success(.hostLeft)) }
                return end(.failure(CommandFailure(.rendezvousUnreachable, code: "server-shutdown",
                                                   "the rendezvous at \(client.address) shut down; the call is over")))
            }
            if code == 1000 || phase == .joining {
                // The server refused us and said why in an error message we already handled, or closed for its own reason.
                return end(.failure(CommandFailure(.rendezvousUnreachable, code: "rendezvous-lost",
                                                   "the rendezvous at \(client.address) closed the connection" + (reason.isEmpty ? "" : ": \(reason)"))))
            }
            end(.failure(CommandFailure(.rendezvousUnreachable, code: "rendezvous-lost",
                                        "lost the connection to the rendezvous at \(client.address)" + (reason.isEmpty ? "" : " (\(reason))")
                                            + ": is it still running?")))
        }
    }

    private func startTimers() {
        startPinging()
        if let duration {
            timers.append(loop.schedule(after: duration) { [weak self] in self?.leave(reason: .duration) })
        }
    }

    private func startPinging() {
        pingTimer?.cancel()
        pingTimer = loop.schedule(every: Self.pingInterval) { [weak self] in
            guard let self, self.phase == .inRoom else { return false }
            if self.clock.now().since(self.lastHeard) >= Self.serverSilenceLimit {
                self.lost(.stoppedAnswering)
                return false
            }
            self.client.send(.ping)
            return true
        }
    }

    // MARK: Without the rendezvous

    /// The connection to the rendezvous broke while in the room: the links stay, we reconnect.
    private func lost(_ why: CallEvent.RendezvousLoss) {
        let wasInRoom = phase == .inRoom
        phase = .away
        pingTimer?.cancel()
        if wasInRoom {
            reporter.emit(.rendezvousLost(rendezvous: client.address.description, reason: why))
        }
        guard resumeToken != nil else {
            guard connectedPeers() > 0 else {
                return end(.failure(CommandFailure(.rendezvousUnreachable, code: "rendezvous-lost",
                    "lost the connection to the rendezvous at \(client.address) (\(why.words)) and no peer is connected: is it still running?")))
            }
            return detach(.noResume)
        }
        watchAlone()
        scheduleReconnect()
    }

    private func scheduleReconnect() {
        guard phase == .away || phase == .resuming else { return }
        phase = .away
        let delay = backoff.next(using: &random)
        reconnectTimer?.cancel()
        reconnectTimer = loop.schedule(after: delay) { [weak self] in
            guard let self, self.phase == .away else { return }
            self.connect()
        }
    }

    /// The seat is ours again: report it and reconcile the roster with what changed while away.
    private func resumed(_ joined: ServerMessage.Joined) {
        phase = .inRoom
        awayTimer?.cancel()
        awayTimer = nil
        backoff.reset()
        resumeToken = joined.resumeToken ?? resumeToken
        reporter.emit(.rendezvousBack(rendezvous: client.address.description))
        let now = Dictionary(joined.peers.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        // A peer missing from the roster that we still talk to stays: a restarted rendezvous
        // seats each of us as our resumes arrive, and its peer-joined will follow. One that
        // really left has closed its link (or gone silent), and is reported now.
        for id in peers.keys where now[id] == nil && !isConnected(id) { departed(id) }
        for peer in joined.peers where peers[peer.id] == nil { arrived(peer) }
        startPinging()
    }

    private func arrived(_ peer: Participant) {
        guard peers[peer.id] == nil else { return }  // a seat we know (and may be talking to) already
        peers[peer.id] = peer
        reporter.emit(.peerJoined(peer))
        onPeerJoined?(peer)
    }

    private func departed(_ id: ParticipantID) {
        guard let peer = peers.removeValue(forKey: id) else { return }
        reporter.emit(.peerLeft(peer))
        onPeerLeft?(id)
    }

    /// No rendezvous for good: the call goes on with those connected and ends when none is left.
    private func detach(_ reason: CallEvent.RendezvousClosing) {
        if reason != .hostLeft && connectedPeers() == 0 {
            return end(.failure(CommandFailure(.rendezvousUnreachable, code: reason.code,
                                               "\(reason.words(rendezvous: client.address.description)), and no peer is connected")))
        }
        phase = .detached
        pingTimer?.cancel()
        awayTimer?.cancel()
        awayTimer = nil
        client.close()
        reporter.emit(.rendezvousClosed(rendezvous: client.address.description, reason: reason))
        timers.append(loop.schedule(every: .milliseconds(500)) { [weak self] in
            guard let self, self.phase == .detached else { return false }
            // Without a rendezvous a link that ends cannot be set up again: the call is over
            // once none is left.
            if self.connectedPeers() == 0 { self.end(.success(reason == .hostLeft ? .hostLeft : .nobodyLeft)) }
            return self.phase == .detached
        })
    }

    /// Away with nobody connected for `awayAloneLimit`: there is no call to keep (exit 6).
    private func watchAlone() {
        guard awayTimer == nil else { return }
        var aloneSince: Instant?
        awayTimer = loop.schedule(every: .milliseconds(500)) { [weak self] in
            guard let self, self.phase == .away || self.phase == .resuming else { self?.awayTimer = nil; return false }
            let now = self.clock.now()
            if self.connectedPeers() > 0 {
                aloneSince = nil
            } else if now.since(aloneSince ?? now) >= Self.awayAloneLimit {
                self.end(.failure(CommandFailure(.rendezvousUnreachable, code: "rendezvous-lost",
                    "lost the connection to the rendezvous at \(self.client.address); it stayed unreachable for "
                        + "\(Int(Self.awayAloneLimit.milliseconds / 1000)) s and no peer is connected: is it still running?")))
                return false
            } else if aloneSince == nil {
                aloneSince = now
            }
            return true
        }
    }

    private func end(_ result: Result<CallEvent.LeaveReason, CommandFailure>) {
        guard phase != .ended else { return }
        phase = .ended
        for timer in timers { timer.cancel() }
        timers.removeAll()
        pingTimer?.cancel()
        awayTimer?.cancel()
        reconnectTimer?.cancel()
        client.close()
        onEnd(result)
    }

    private func reportJoined(_ joined: ServerMessage.Joined) {
        reporter.emit(.joined(.init(you: joined.you, name: name, role: joined.role, room: joined.room, roomName: joined.roomName,
                                    resolution: joined.resolution, peers: joined.peers)))
    }

    static func describe(_ failure: RendezvousClientError, address: RendezvousAddress) -> CommandFailure {
        switch failure {
        case .unreachable(let why):
            CommandFailure(.rendezvousUnreachable, code: "rendezvous-unreachable",
                           "cannot reach the rendezvous at \(address): \(why) — is `conf host` or `conf rendezvous` running there? set --server")
        case .refused(let code, let text):
            CommandFailure(ExitCode(code), code: code.rawValue, "the rendezvous at \(address) refused: \(text)")
        case .badAnswer(let text):
            CommandFailure(.rendezvousUnreachable, code: "rendezvous-unreachable", text)
        case .untrustedCertificate(let why):
            CommandFailure(.rendezvousUnreachable, code: "untrusted-certificate",
                           "the rendezvous at \(address) is not trusted: \(why) — if it uses a private CA or a self-signed certificate, pass --ca FILE with it")
        }
    }

    static func explain(_ code: ErrorCode, _ text: String, room: RoomID) -> String {
        switch code {
        case .wrongPin: "wrong pin for room \(room): check the six digits with the host"
        case .noSuchRoom: "there is no room \(room) on this rendezvous: check the id and --server; rooms expire when empty"
        case .roomFull: "room \(room) is full (four participants): ask someone to leave, or open another room"
        case .rateLimited: "too many wrong pins recently: wait a minute before trying again"
        case .notAdmitted: "room \(room) is locked after too many wrong pins and nobody in the call let you in: ask the host to admit you when you knock, or try later"
        default: "the rendezvous refused to join: \(text)"
        }
    }
}
