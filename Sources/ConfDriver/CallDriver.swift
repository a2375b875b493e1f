import ConfCall
import ConfCallMedia
import ConfCore
import ConfCrypto
import ConfIO
import ConfWire

/// Runs a participant's `CallEngine` with real things: a libnice agent per link, usrsctp data
/// channels, the audio and video pipelines, the recordings, the terminal view. Everything the
/// engine decides comes out of `pollOutput()` and is carried out here; everything that happens
/// here goes back in as an input with the monotonic clock's `now`.
///
/// Threading: the event loop thread only.
public final class CallDriver {
    public struct Settings {
        public var iceServers: [IceServerAddress]
        public var relayOnly: Bool
        public var trust: String?
        /// The router is asked to forward each link's port (PCP, NAT-PMP, UPnP-IGD), offered as a
        /// server-reflexive candidate (`MediaPortMapping`).
        public var portMapping: Bool

        public init(iceServers: [IceServerAddress], relayOnly: Bool, trust: String?, portMapping: Bool = false) {
            self.iceServers = iceServers
            self.relayOnly = relayOnly
            self.trust = trust
            self.portMapping = portMapping
        }
    }

    let loop: EventLoop
    let reporter: EventReporter
    let clock: any MonotonicClock
    public private(set) var engine: CallEngine!
    /// A libnice agent per link, the TURN-over-TLS tunnels, the machine's addresses.
    private var ice: IceAgents!
    public var settings: Settings {
        get { ice.settings }
        set { ice.settings = newValue }
    }
    private let sendSignal: (ParticipantID, JSONValue) -> Void
    /// Nobody connected within the connect timeout: whether some link found no network path.
    private let onCallFailed: (_ noPath: NoPathCause?) -> Void
    /// The audio and video pipelines, the sounds, the camera opener.
    public private(set) var devices: CallDevices!
    var audio: AudioPipeline? { devices.audio }
    var video: VideoPipeline? { devices.video }
    /// stdin's commands, the call screen's keys and line, the window's keys.
    public private(set) var controls: CallControls!
    /// The call screen, the terminal view, the window.
    public private(set) var views: CallViews!
    /// Wakes the driver when the engine, the audio source or the video pipeline next needs it
    /// (`rearm()` after every input), rather than on a fixed tick.
    private var ticker: DeadlineTimer?
    /// What the ticker was last set for, and how far past it an input found the loop before
    /// the tick ran: how late the tick comes is how held up this loop is.
    private var wakeAt: Instant?
    private var overdue: Duration?
    /// Called when this machine's addresses change. The owner feeds `.networkChanged` once
    /// signals can reach the peers again (see ParticipantSession.networkChanged).
    public var onNetworkChanged: () -> Void = {}
    /// A peer said over its link that it left (`bye`): its owner tells the session.
    public var onPeerSaidGoodbye: (ParticipantID) -> Void = { _ in }
    private var draining = false
    /// Inputs that came while outputs were carried out (`feed`), handled once all are.
    private var inputsWhileDraining: [CallEngine.Input] = []

    public init(loop: EventLoop, reporter: EventReporter, clock: any MonotonicClock, random: any RandomNumberGenerator,
                security: any LinkSecurity, configuration: CallEngine.Configuration, settings: Settings,
                sendSignal: @escaping (ParticipantID, JSONValue) -> Void, onCallFailed: @escaping (_ noPath: NoPathCause?) -> Void) {
        self.loop = loop
        self.reporter = reporter
        self.clock = clock
        self.sendSignal = sendSignal
        self.onCallFailed = onCallFailed
        let factory = UsrsctpFactory(loop: loop) { [weak self] in
            self?.engine.dataChannelsHaveOutput()
            self?.drain()
        }
        engine = CallEngine(configuration: configuration, security: security, dataChannels: factory, random: random)
        devices = CallDevices(reporter: reporter, clock: clock, feed: { [weak self] in self?.feed($0) },
                              soundQueued: { [weak self] in self?.rearm() })
        views = CallViews(loop: loop, clock: clock, reporter: reporter, engine: engine) { [unowned self] in (self.audio, self.video) }
        controls = CallControls(driver: self)
        ice = IceAgents(loop: loop, settings: settings, onInput: { [weak self] in self?.feed($0) },
                        note: { [weak reporter] in reporter?.note("\($0)") })
    }

    // MARK: Inputs

    /// One input to the engine, then everything it wants done. An input that comes while the
    /// outputs are being carried out (one they caused) waits until all of them are.
    public func feed(_ input: CallEngine.Input) {
        guard !draining else { return inputsWhileDraining.append(input) }
        engine.handle(input, now: clock.now())
        drain()
    }

    /// A person's command (`CallControls`), handled at once with its refusal; one that comes
    /// while outputs are carried out (a key read while a view redraws) waits for them, as
    /// `feed`'s inputs do, and is not refused.
    func command(_ input: CallEngine.Input) -> CallEngine.Refusal? {
        guard !draining else {
            inputsWhileDraining.append(input)
            return nil
        }
        let refusal = engine.handle(input, now: clock.now())
        drain()
        return refusal
    }

    /// Carries out the engine's outputs, then the inputs they caused, until neither is left.
    public func drain() {
        guard !draining else { return }  // the loop below picks it up
        draining = true
        defer { draining = false }
        while true {
            while let output = engine.pollOutput() { perform(output) }
            guard !inputsWhileDraining.isEmpty else { break }
            for input in inputsWhileDraining { engine.handle(input, now: clock.now()) }  // adds none: the engine calls nothing back
            inputsWhileDraining.removeAll(keepingCapacity: true)
        }
        rearm()
    }

    /// Sets the ticker to the earliest time something is due: the engine's next deadline, the
    /// next audio frame, the video pipeline's next tick.
    private func rearm() {
        guard let ticker else { return }
        let now = clock.now()
        let next = [engine.nextDeadline(), devices.nextDue(now: now)].compactMap { $0 }.min()
        // Rounded up to the end of its 5 ms slot, as a fixed 5 ms tick would run it: what falls
        // due within one slot shares a wakeup (each costs a poll of every socket), and a slot with
        // nothing due is skipped. "Now" (a device to poll, a frame with the encoder) is the next slot.
        let target = next.map { due in
            let after = max(due.nanoseconds, now.nanoseconds + 1)
            return Instant(nanoseconds: (after + Self.slot - 1) / Self.slot * Self.slot)
        }
        // A tick due and not yet run while an input is handled (a held-up loop's datagrams come
        // first): the loop is at least this late, kept for the tick to report, since the set
        // time moves on to `target`.
        if let armed = wakeAt, armed <= now { overdue = max(overdue ?? .zero, now.since(armed)) }
        wakeAt = target
        ticker.wake(at: target)
    }

    private static let slot: UInt64 = 5_000_000

    /// Audio frames due, video to encode or send, and the engine's deadlines.
    private func tick() {
        let now = clock.now()
        let late = max(wakeAt.map { now.since($0) } ?? .zero, overdue ?? .zero)
        (wakeAt, overdue) = (nil, nil)
        if late >= .milliseconds(10) { engine.handle(.loopLate(by: late), now: now) }
        devices.tick(now: now)
        if let deadline = engine.nextDeadline(), deadline <= now { engine.handle(.timeout, now: now) }
        drain()
    }

    /// We are in the room: media and time start.
    public func joined(_ joined: ServerMessage.Joined) {
        devices.startSending()
        ticker = loop.deadlineTimer { [weak self] in self?.tick() }
        ticker?.wake(at: clock.now())
        feed(.joined(you: joined.you, role: joined.role, peers: joined.peers))
        ice.watchAddresses { [weak self] addresses in
            guard let self else { return }
            self.reporter.note("conf: this machine's addresses changed (\(addresses.filter { $0 != "127.0.0.1" }.joined(separator: ", "))): connecting again")
            self.onNetworkChanged()
        }
    }

    public func peerLeft(_ id: ParticipantID) {
        feed(.peerLeft(id))
        devices.peerLeft(id)
    }

    // MARK: Outputs

    private func perform(_ output: CallEngine.Output) {
        switch output {
        case .startIce, .gather, .setRemoteCredentials, .addRemoteCandidate, .remoteCandidatesDone, .closeIce, .transmit:
            ice.perform(output)
        case .signal(let id, let payload):
            sendSignal(id, payload)
        case .event(let event):
            reporter.emit(event)
        case .note(let note):
            reporter.note("\(note.text)")
        case .callFailed(let noPath):
            onCallFailed(noPath)
        case .peerSaidGoodbye(let id):
            onPeerSaidGoodbye(id)
        default:
            let media = devices.perform(output, participant: engine.participant, pictureArrived: views.pictureArrived)
            assert(media, "an output nobody carries out: \(output)")
        }
    }

    // MARK: Leaving

    /// The screen and the terminal view closed before the session's last lines ("Left the room",
    /// an error), so that they are printed on the normal screen instead of vanishing with the
    /// alternate one; the window stays until `close`.
    public func stopViews() {
        views.stopTerminalView()
        views.stopScreen()
    }

    /// Closes every link (we are leaving); `done` once TURN allocations are released, or after
    /// half a second at most.
    public func close(then done: @escaping () -> Void) {
        ticker?.cancel()
        views.stopAll()
        controls.stop()
        devices.close()
        feed(.leave)
        ice.whenClosed(within: .milliseconds(500), done)
    }
}
