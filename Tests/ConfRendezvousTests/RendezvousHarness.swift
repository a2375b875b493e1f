import ConfCore
import ConfCrypto
import ConfRendezvous
import ConfWire

/// Drives a `RendezvousCore` with a manual clock and collects what it asks to send, per connection.
final class RendezvousHarness {
    let core: RendezvousCore
    let clock = ManualClock(Instant(nanoseconds: 1_000_000_000))
    private var nextID: UInt64 = 1
    private(set) var inbox: [ConnectionID: [ServerMessage]] = [:]
    private(set) var closed: [ConnectionID: (code: UInt16, reason: String)] = [:]
    private(set) var logs: [String] = []
    /// Connections handed to another worker: to which, and the refusal to send if that fails.
    private(set) var handedOver: [ConnectionID: (worker: Int, otherwise: ServerMessage)] = [:]

    /// Unix time at the harness clock's start, for resume-token expiry.
    static let unixStart: Int64 = 1_800_000_000

    /// With `secret`, the core gets a real HMAC-SHA256 key: derived pins and resume tokens.
    init(config: RendezvousConfig = RendezvousConfig(), seed: UInt64 = 1, secret: UInt8? = nil,
         clockStart: Instant = Instant(nanoseconds: 1_000_000_000), unixStart: Int64 = RendezvousHarness.unixStart) {
        clock.advance(by: clockStart.since(clock.now()))
        let key = secret.map { byte in
            let hmac = HMACSHA256(key: [UInt8](repeating: byte, count: 32))
            return ServerKey(mac: { hmac.authenticate($0) })
        }
        core = RendezvousCore(config: config, random: SeededRandom(seed: seed), key: key,
                              wallClock: WallClockAnchor(instant: clock.now(), unixSeconds: unixStart))
    }

    func tryCreateRoom(_ name: String = "standup", from address: String) throws(RendezvousCore.CreateRoomFailure) -> RoomCreated {
        defer { drain() }
        return try core.createRoom(CreateRoomRequest(name: name, resolution: .p480), from: address, now: clock.now())
    }

    func createRoom(_ name: String = "standup", _ resolution: Resolution = .p480, from address: String = "192.0.2.1") -> RoomCreated {
        let room = try! core.createRoom(CreateRoomRequest(name: name, resolution: resolution), from: address, now: clock.now())
        drain()
        return room
    }

    func open(from address: String = "192.0.2.1", host: String? = nil) -> ConnectionID {
        let id = ConnectionID(nextID)
        nextID += 1
        core.handle(.opened(id, address: address, host: host), now: clock.now())
        drain()
        return id
    }

    func send(_ id: ConnectionID, _ message: ClientMessage) { send(id, text: message.json.serialized) }

    func send(_ id: ConnectionID, text: String) {
        core.handle(.text(id, text), now: clock.now())
        drain()
    }

    /// Opens a connection and joins; returns it with the `joined` answer, or nil and the error.
    func join(_ room: RoomCreated, pin: Pin? = nil, name: String = "ann", from address: String = "192.0.2.1", host: String? = nil)
        -> (ConnectionID, ServerMessage.Joined?)
    {
        let id = open(from: address, host: host)
        send(id, .join(room: room.room, pin: pin ?? room.pin, name: name))
        for message in inbox[id] ?? [] { if case .joined(let joined) = message { return (id, joined) } }
        return (id, nil)
    }

    /// What the I/O layer does after a close: reports it closed.
    func disconnect(_ id: ConnectionID) {
        core.handle(.closed(id), now: clock.now())
        drain()
    }

    /// What the I/O layer does for every close the core asked for: reports it closed.
    func reportCloses() {
        for id in closed.keys where !reported.contains(id) {
            reported.insert(id)
            core.handle(.closed(id), now: clock.now())
        }
        drain()
    }
    private var reported = Set<ConnectionID>()

    func tick(after duration: Duration) {
        clock.advance(by: duration)
        core.handle(.tick, now: clock.now())
        drain()
    }

    func take(_ id: ConnectionID) -> [ServerMessage] {
        defer { inbox[id] = [] }
        return inbox[id] ?? []
    }

    /// Everything `id` has been sent so far, without taking it.
    func messages(_ id: ConnectionID) -> [ServerMessage] { inbox[id] ?? [] }

    func lastError(_ id: ConnectionID) -> ErrorCode? {
        for message in (inbox[id] ?? []).reversed() { if case .error(let code, _) = message { return code } }
        return nil
    }

    func drain() {
        while let output = core.pollOutput() {
            switch output {
            case .send(let id, let text): inbox[id, default: []].append(try! ServerMessage(text: text))
            case .close(let id, let code, let reason): closed[id] = (code, reason)
            case .log(let line): logs.append(line)
            case .handOver(let id, let worker, let otherwise): handedOver[id] = (worker, try! ServerMessage(text: otherwise))
            }
        }
    }
}
