import ConfCore
import ConfSession
import ConfWire

/// One participant's side of the rendezvous protocol, sans-IO: the client's twin of
/// `RendezvousCore`. It connects, joins (knocking at a locked room), reports who comes and goes,
/// keeps the connection alive with pings, takes its seat back with the resume token after the
/// connection is lost, and leaves on request, when `duration` is over, or when the rendezvous ends.
///
/// Feed it the transport's events, the server's messages and the owner's requests with
/// `handle(_:now:connected:)`, drain `pollOutput()` until nil, and call `handle(.timeout, ...)` at
/// `nextDeadline()`. It reads no clock and opens no socket; the backoff's jitter comes from the
/// injected generator. `connected` is the call's side of things: the peers whose links carry the
/// call at that moment (it decides whether the call goes on without a rendezvous).
///
///     connecting ──open──▶ joining ──joined──▶ in room ──leave──▶ leaving ──closed (or 2 s)──▶ ended
///          │                  │                 │  ▲
///          └──────────────────┴── failure ──────┼──┼───────────────────────────────────────▶ ended
///                                  connection lost │ resumed (same seat)
///                                               ▼  │
///                                              away ──resume refused──▶ detached ──no link left──▶ ended
///                                               │                          ▲
///                                               └─ nobody connected 30 s ──┼──▶ ended (failed)
///                                      in room ──host left (room closed)───┘
///
/// Away and detached, the peer links stay up: the call goes on with those connected; only
/// newcomers (and links that need signalling to come back) wait for the rendezvous.
///
/// Threading: none of its own; the owner calls it from one thread.
public final class RendezvousSession {
    public struct Configuration: Sendable {
        /// Where the rendezvous is: named in events and failures.
        public var rendezvous: RendezvousAddress
        public var room: RoomID
        public var pin: Pin
        /// Our name in the room.
        public var name: String
        /// We leave this long after joining (`--duration`); nil to stay.
        public var duration: Duration?

        public init(rendezvous: RendezvousAddress, room: RoomID, pin: Pin, name: String, duration: Duration? = nil) {
            self.rendezvous = rendezvous
            self.room = room
            self.pin = pin
            self.name = name
            self.duration = duration
        }
    }

    public enum Phase: Equatable, Sendable { case idle, connecting, joining, inRoom, away, resuming, detached, leaving, ended }

    public enum Input: Sendable {
        case start
        /// The WebSocket the latest `.connect` asked for is open.
        case transportOpened
        /// It could not be opened.
        case transportFailed(RendezvousClientError)
        /// It ended, with its close code (1006 when it broke without a close frame) and the reason.
        case transportClosed(code: UInt16, reason: String)
        /// A text message from the rendezvous, as it came: it is validated here.
        case received(String)
        /// Leave the room cleanly: the others are told at once.
        case leave(CallEvent.LeaveReason)
        /// The call failed for a reason of its own, which its owner reports: leave without waiting.
        case abandon
        /// A publisher's answer to a knock; dropped unless `isInRoom`.
        case answerKnock(KnockID, admit: Bool)
        /// A signal for one peer, to be relayed; dropped unless in the room.
        case signal(to: ParticipantID, JSONValue)
        /// This machine's addresses changed: the connection may have lost its address. It is
        /// pinged; `.signalPathConfirmed` follows once it answers, or once a new connection has
        /// taken the seat back.
        case networkChanged
        /// A peer said over its link that it left (`bye`): gone as if the rendezvous had said so,
        /// which it may never do once it is gone.
        case peerSaidGoodbye(ParticipantID)
        case timeout
    }

    public enum Output: Equatable, Sendable {
        /// Open the WebSocket to the rendezvous (again: drop the previous connection silently).
        case connect
        case send(ClientMessage)
        /// Start the WebSocket closing handshake; `.transportClosed` follows.
        case close(code: UInt16, reason: String)
        case event(CallEvent)
        /// A line for the person with no event: the driver shows it escaped.
        case note(String)
        /// The room, for the call engine: we are in (with the rendezvous's ICE servers and the
        /// room's resolution), someone came, someone went, a peer's signal.
        case joined(ServerMessage.Joined)
        case peerJoined(Participant)
        case peerLeft(ParticipantID)
        case signal(from: ParticipantID, JSONValue)
        /// After `.networkChanged`: signals reach the rendezvous again (the connection answered,
        /// or a new one resumed the seat), so the links can be set up again over it.
        case signalPathConfirmed
        /// We start leaving (a command, a signal, the duration): what ends after this is our doing.
        case leaving
        /// The session is over; nothing more comes out.
        case ended(Ending)
    }

    public enum Ending: Equatable, Sendable {
        case left(CallEvent.LeaveReason)
        case failed(RendezvousFailure)
        /// After `.abandon`: the owner reports its own failure.
        case abandoned
    }

    /// The client pings this often; the server drops clients silent for 45 s.
    public static let pingInterval: Duration = .seconds(15)
    /// No message (pongs included) from the server for this long, seen at a ping: the connection is dead.
    public static let serverSilenceLimit: Duration = .seconds(40)
    /// With the rendezvous away and no peer connected for this long, the session ends.
    public static let awayAloneLimit: Duration = .seconds(30)
    /// How often the call's links are looked at while away or detached.
    static let linkCheckInterval: Duration = .milliseconds(500)
    /// How long `leaving` waits for the close handshake.
    static let closeWait: Duration = .seconds(2)
    /// After a network change, how long the connection has to answer a ping before it is
    /// given up and a new one made.
    public static let networkProbeWait: Duration = .seconds(2)

    public let configuration: Configuration
    var random: any RandomNumberGenerator
    public internal(set) var phase = Phase.idle
    /// Who is in the room besides us, in the order we learnt of them.
    var roster: [Participant] = []
    /// The peers whose links carry the call, as of the latest input.
    var connected: Set<ParticipantID> = []
    /// Set by `leave` before the phase becomes `.leaving`, where it is read.
    var leaveReason = CallEvent.LeaveReason.command
    var lastHeard = Instant.zero
    /// Set when the server said why the room ended, before closing.
    var roomClosedReason: String?
    /// From `joined`: takes our seat back after the connection to the rendezvous is lost.
    var resumeToken: String?
    var backoff = ReconnectBackoff()
    /// Whether a WebSocket is open (and not yet told to close).
    var transportOpen = false
    var detachReason: CallEvent.RendezvousClosing?

    // Deadlines; each is nil when not scheduled.
    var closeGivenUpAt: Instant?
    var durationEndsAt: Instant?
    var nextPingAt: Instant?
    var reconnectAt: Instant?
    var aloneCheckAt: Instant?
    /// Since when no link carried the call while away (seen at a check).
    var aloneSince: Instant?
    var detachedCheckAt: Instant?
    /// After `.networkChanged` in the room: when the probe ping, while unanswered, is given up.
    var probeGivenUpAt: Instant?
    /// A `.signalPathConfirmed` is owed to the owner.
    var owesPathConfirmation = false

    private var outputs: [Output] = []
    private var outputIndex = 0

    public init(configuration: Configuration, random: any RandomNumberGenerator) {
        self.configuration = configuration
        self.random = random
    }

    /// Whether we hold our seat on a connected rendezvous now (knocks can be answered).
    public var isInRoom: Bool { phase == .inRoom }

    // MARK: Driving

    public func handle(_ input: Input, now: Instant, connected: Set<ParticipantID>) {
        self.connected = connected
        switch input {
        case .start:
            guard phase == .idle else { return }
            phase = .connecting
            outputs.append(.connect)
        case .transportOpened: opened(now: now)
        case .transportFailed(let failure): failed(failure, now: now)
        case .transportClosed(let code, let reason): closed(code: code, reason: reason, now: now)
        case .received(let text): received(text, now: now)
        case .leave(let reason): leave(reason, now: now)
        case .abandon:
            guard phase != .ended else { return }
            if phase == .inRoom { send(.leave) }
            end(.abandoned)
        case .answerKnock(let knock, let admit):
            guard phase == .inRoom else { return }
            send(admit ? .admit(knock) : .deny(knock))
        case .signal(let peer, let payload):
            guard phase == .inRoom else { return }
            send(.signal(to: peer, payload: payload))
        case .networkChanged: networkChanged(now: now)
        case .peerSaidGoodbye(let id): departed(id)
        case .timeout: timeout(now: now)
        }
    }

    /// The next thing to do, or nil when there is nothing until `nextDeadline()` or an input.
    public func pollOutput() -> Output? {
        guard outputIndex < outputs.count else {
            outputs.removeAll(keepingCapacity: true)
            outputIndex = 0
            return nil
        }
        defer { outputIndex += 1 }
        return outputs[outputIndex]
    }

    /// When `handle(.timeout, ...)` is due next; nil when nothing is scheduled.
    public func nextDeadline() -> Instant? {
        guard phase != .ended else { return nil }
        return [closeGivenUpAt, durationEndsAt, nextPingAt, reconnectAt, aloneCheckAt, detachedCheckAt, probeGivenUpAt].compactMap { $0 }.min()
    }

    // MARK: Leaving and ending

    func leave(_ reason: CallEvent.LeaveReason, now: Instant) {
        switch phase {
        case .idle, .ended, .leaving: return
        case .connecting, .joining, .away, .resuming, .detached:
            leaveReason = reason
            end(.left(reason))
        case .inRoom:
            leaveReason = reason
            phase = .leaving
            nextPingAt = nil
            outputs.append(.leaving)
            send(.leave)
            closeTransport(code: 1000, reason: "left")
            // If the close handshake does not finish, do not hang on it.
            closeGivenUpAt = now + Self.closeWait
        }
    }

    func end(_ ending: Ending) {
        guard phase != .ended else { return }
        phase = .ended
        closeGivenUpAt = nil
        durationEndsAt = nil
        nextPingAt = nil
        reconnectAt = nil
        aloneCheckAt = nil
        detachedCheckAt = nil
        probeGivenUpAt = nil
        closeTransport()
        outputs.append(.ended(ending))
    }

    // MARK: Output helpers

    func send(_ message: ClientMessage) { outputs.append(.send(message)) }

    func emit(_ event: CallEvent) { outputs.append(.event(event)) }

    func output(_ output: Output) { outputs.append(output) }

    func closeTransport(code: UInt16 = 1000, reason: String = "") {
        guard transportOpen else { return }
        transportOpen = false
        outputs.append(.close(code: code, reason: reason))
    }

    /// How events name the rendezvous.
    var rendezvousName: String { configuration.rendezvous.description }
}
