import ConfCall
import ConfCore
import ConfIO
import ConfWire

/// One participant's presence in a room: runs a `RendezvousSession` (ConfCall) with the real
/// rendezvous client, one GLib timer for its deadlines, and the call's links for what it asks of
/// them. Everything the session decides comes out of its `pollOutput()` and is carried out here.
///
/// Threading: lives on the `EventLoop` thread.
public final class ParticipantSession {
    private let loop: EventLoop
    private let client: RendezvousClient
    private let reporter: EventReporter
    private let clock: any MonotonicClock
    private let core: RendezvousSession
    private let room: RoomID
    /// Where the person named the rendezvous ("--server", "CONF_SERVER", ...), for the error that
    /// says it cannot be reached; nil for the one inside `conf host`.
    private let serverNamedBy: String?
    private let onEnd: (Result<CallEvent.LeaveReason, CommandFailure>) -> Void
    /// Which connection attempt is current: callbacks from older ones are ignored.
    private var attempt = 0
    private var timer: Timer?
    private var armedFor: Instant?
    private var draining = false
    /// What `leave(failing:)` was given, reported when the session has ended.
    private var abandonedWith: CommandFailure?

    /// The peers whose links carry the call now.
    public var connectedPeers: () -> [ParticipantID] = { [] }

    /// The room as it happens, for the peer connections.
    public var onJoined: ((ServerMessage.Joined) -> Void)?
    public var onPeerJoined: ((Participant) -> Void)?
    public var onPeerLeft: ((ParticipantID) -> Void)?
    public var onSignal: ((ParticipantID, JSONValue) -> Void)?
    /// We start leaving (a command, a signal, the duration): what ends after this is our doing.
    public var onLeaving: (() -> Void)?
    /// After `networkChanged()`: signals reach the rendezvous again.
    public var onSignalPathConfirmed: (() -> Void)?

    public init(loop: EventLoop, client: RendezvousClient, reporter: EventReporter, clock: any MonotonicClock, random: any RandomNumberGenerator,
                room: RoomID, pin: Pin, name: String, duration: Duration?, serverNamedBy: String? = nil,
                onEnd: @escaping (Result<CallEvent.LeaveReason, CommandFailure>) -> Void) {
        self.loop = loop
        self.client = client
        self.reporter = reporter
        self.clock = clock
        self.room = room
        self.serverNamedBy = serverNamedBy
        self.onEnd = onEnd
        core = RendezvousSession(configuration: .init(rendezvous: client.address, room: room, pin: pin, name: name, duration: duration),
                                 random: random)
    }

    public func start() { feed(.start) }

    /// Leaves the room cleanly: the others are told at once.
    public func leave(reason: CallEvent.LeaveReason) { feed(.leave(reason)) }

    /// Leaves the room because the call failed; the session ends with `failure`.
    public func leave(failing failure: CommandFailure) {
        guard core.phase != .ended else { return }
        abandonedWith = failure
        feed(.abandon)
    }

    /// A publisher's answer to a knock; false when not in a room. The rendezvous says if it refuses.
    public func answer(_ knock: KnockID, admit: Bool) -> Bool {
        guard core.isInRoom else { return false }
        feed(.answerKnock(knock, admit: admit))
        return true
    }

    public func sendSignal(to peer: ParticipantID, _ payload: JSONValue) { feed(.signal(to: peer, payload)) }

    /// This machine's addresses changed: `onSignalPathConfirmed` follows once the rendezvous
    /// connection is known to work (see `RendezvousSession.Input.networkChanged`).
    public func networkChanged() { feed(.networkChanged) }

    /// A peer said over its link that it left.
    public func peerSaidGoodbye(_ id: ParticipantID) { feed(.peerSaidGoodbye(id)) }

    // MARK: Driving the core

    private func feed(_ input: RendezvousSession.Input) {
        core.handle(input, now: clock.now(), connected: Set(connectedPeers()))
        drain()
    }

    /// Carries out the core's outputs (inputs they cause are fed as they come), then sets the timer.
    private func drain() {
        guard !draining else { return }  // the loop below picks it up
        draining = true
        while let output = core.pollOutput() { perform(output) }
        draining = false
        rearm()
    }

    /// One timer, for the core's next deadline (rounded up to GLib's milliseconds, so that it
    /// never fires before it).
    private func rearm() {
        let deadline = core.nextDeadline()
        guard deadline != armedFor || timer == nil else { return }
        timer?.cancel()
        timer = nil
        armedFor = deadline
        guard let deadline else { return }
        let now = clock.now()
        let wait = deadline > now ? deadline.since(now).nanosecondsClamped : 0
        timer = loop.schedule(after: .milliseconds((wait + 999_999) / 1_000_000)) { [weak self] in
            self?.timer = nil
            self?.feed(.timeout)
        }
    }

    private func perform(_ output: RendezvousSession.Output) {
        switch output {
        case .connect: connect()
        case .send(let message): client.send(message)
        case .close(let code, let reason): client.close(code: code, reason: reason)
        case .event(let event): reporter.emit(event)
        case .note(let text): reporter.note("\(text)")
        case .joined(let joined): onJoined?(joined)
        case .peerJoined(let peer): onPeerJoined?(peer)
        case .peerLeft(let id): onPeerLeft?(id)
        case .signal(let from, let payload): onSignal?(from, payload)
        case .leaving: onLeaving?()
        case .signalPathConfirmed: onSignalPathConfirmed?()
        case .ended(let ending):
            timer?.cancel()
            timer = nil
            switch ending {
            case .left(let reason): onEnd(.success(reason))
            case .failed(let failure): onEnd(.failure(CommandFailure(failure, rendezvous: client.address, namedBy: serverNamedBy, room: room)))
            case .abandoned: onEnd(.failure(abandonedWith ?? CommandFailure(.failure, code: "failed", "the call failed")))
            }
        }
    }

    private func connect() {
        attempt += 1
        let current = attempt
        client.connect(room: room,
            opened: { [weak self] failure in
                guard let self, self.attempt == current else { return }
                self.feed(failure.map { .transportFailed($0) } ?? .transportOpened)
            },
            message: { [weak self] text in
                guard let self, self.attempt == current else { return }
                self.feed(.received(text))
            },
            closed: { [weak self] code, reason in
                guard let self, self.attempt == current else { return }
                self.feed(.transportClosed(code: code, reason: reason))
            })
    }
}
