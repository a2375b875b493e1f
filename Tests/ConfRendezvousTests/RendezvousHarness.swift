import ConfCore
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

    init(config: RendezvousConfig = RendezvousConfig(), seed: UInt64 = 1) {
        core = RendezvousCore(config: config, random: SeededRandom(seed: seed))
    }

    func createRoom(_ name: String = "standup", _ resolution: Resolution = .p480, from address: String = "192.0.2.1") -> RoomCreated {
        let room = try! core.createRoom(CreateRoomRequest(name: name, resolution: resolution), from: address, now: clock.now())
        drain()
        return room
    }

    func open(from address: String = "192.0.2.1") -> ConnectionID {
        let id = ConnectionID(nextID)
        nextID += 1
        core.handle(.opened(id, address: address), now: clock.now())
        drain()
        return id
    }

    func send(_ id: ConnectionID, _ message: ClientMessage) { send(id, text: message.json.serialized) }

    func send(_ id: ConnectionID, text: String) {
        core.handle(.text(id, text), now: clock.now())
        drain()
    }

    /// Opens a connection and joins; returns it with the `joined` answer, or nil and the error.
    func join(_ room: RoomCreated, pin: Pin? = nil, name: String = "ann", from address: String = "192.0.2.1")
        -> (ConnectionID, ServerMessage.Joined?)
    {
        let id = open(from: address)
        send(id, .join(room: room.room, pin: pin ?? room.pin, name: name))
        if case .joined(let joined)? = inbox[id]?.last { return (id, joined) }
        return (id, nil)
    }

    /// What the I/O layer does after a close: reports it closed.
    func disconnect(_ id: ConnectionID) {
        core.handle(.closed(id), now: clock.now())
        drain()
    }

    func tick(after duration: Duration) {
        clock.advance(by: duration)
        core.handle(.tick, now: clock.now())
        drain()
    }

    func take(_ id: ConnectionID) -> [ServerMessage] {
        defer { inbox[id] = [] }
        return inbox[id] ?? []
    }

    func lastError(_ id: ConnectionID) -> ErrorCode? {
        for message in (inbox[id] ?? []).reversed() { if case .error(let code, _) = message { return code } }
        return nil
    }

    private func drain() {
        while let output = core.pollOutput() {
            switch output {
            case .send(let id, let text): inbox[id, default: []].append(try! ServerMessage(text: text))
            case .close(let id, let code, let reason): closed[id] = (code, reason)
            case .log(let line): logs.append(line)
            }
        }
    }
}
