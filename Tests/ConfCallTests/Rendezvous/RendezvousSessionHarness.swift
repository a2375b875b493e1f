import ConfCall
import ConfCore
import ConfWire

/// Drives one `RendezvousSession` on a manual clock: plays the rendezvous's side by hand, keeps
/// every output with the time it came out, and steps time from deadline to deadline.
final class RendezvousSessionHarness {
    let clock = ManualClock(Instant.zero + .seconds(1))
    let session: RendezvousSession
    /// The peers whose links carry the call, as the call engine would say.
    var connected: Set<ParticipantID> = []
    private(set) var outputs: [(at: Instant, output: RendezvousSession.Output)] = []
    /// Where `take()` last stopped.
    private var taken = 0

    static let rendezvous = RendezvousAddress(endpoint: HostPort(host: "192.0.2.5", port: 7373), secure: false)
    static let room = RoomID("4821-7734")!
    static let pin = Pin("381204")!
    static let token = "token-1"

    init(seed: UInt64 = 1, duration: Duration? = nil) {
        session = RendezvousSession(
            configuration: .init(rendezvous: Self.rendezvous, room: Self.room, pin: Self.pin, name: "ann", duration: duration),
            random: SeededRandom(seed: seed))
    }

    var now: Instant { clock.now() }

    func feed(_ input: RendezvousSession.Input) {
        session.handle(input, now: clock.now(), connected: connected)
        while let output = session.pollOutput() { outputs.append((clock.now(), output)) }
    }

    func server(_ message: ServerMessage) { feed(.received(message.json.serialized)) }

    /// Outputs since the last `take()`.
    func take() -> [RendezvousSession.Output] {
        defer { taken = outputs.count }
        return outputs[taken...].map(\.output)
    }

    /// Moves time on by `duration`, handling every deadline on the way at its instant.
    func advance(by duration: Duration) {
        let end = clock.now() + duration
        while let deadline = session.nextDeadline(), deadline <= end {
            if deadline > clock.now() { clock.advance(by: deadline.since(clock.now())) }
            feed(.timeout)
        }
        if end > clock.now() { clock.advance(by: end.since(clock.now())) }
    }

    /// Runs deadlines until an output matches (or `limit` passes); the time it came out.
    @discardableResult
    func run(for limit: Duration, until matches: (RendezvousSession.Output) -> Bool) -> Instant? {
        let end = clock.now() + limit
        var seen = outputs.count
        while true {
            if let hit = outputs[seen...].first(where: { matches($0.output) }) { return hit.at }
            seen = outputs.count
            guard let deadline = session.nextDeadline(), deadline <= end else { return nil }
            if deadline > clock.now() { clock.advance(by: deadline.since(clock.now())) }
            feed(.timeout)
        }
    }

    var ending: RendezvousSession.Ending? {
        for (_, output) in outputs { if case .ended(let ending) = output { return ending } }
        return nil
    }

    var events: [CallEvent] { outputs.compactMap { if case .event(let event) = $0.output { event } else { nil } } }

    // MARK: The rendezvous's side

    static func participant(_ number: Int, _ name: String) -> Participant {
        Participant(id: ParticipantID("p\(number)"), name: name, role: .publisher)
    }

    static func joined(peers: [Participant], token: String? = token) -> ServerMessage.Joined {
        .init(you: ParticipantID("p9"), role: .publisher, room: room, roomName: "standup", resolution: .p480,
              peers: peers, iceServers: [], resumeToken: token)
    }

    /// Started, connected, joined with `peers` already there.
    func joinRoom(with peers: [Participant], token: String? = token) {
        feed(.start)
        feed(.transportOpened)
        server(.joined(Self.joined(peers: peers, token: token)))
        _ = take()
    }
}
