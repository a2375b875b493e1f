import ConfWire

/// A rendezvous's rooms split between its worker threads (`--workers N`): the room with id D
/// (its eight digits as a number) belongs to worker D mod N, which holds its state and all of its
/// connections; nothing is shared between workers. A worker mints only ids of its own. A
/// connection that reaches another worker is handed to the owner before its WebSocket opens
/// (`/v1/ws?room=ID` says which), so no message ever crosses between threads.
public struct WorkerShare: Equatable, Sendable {
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        (self.index, self.count) = (index, count)
    }

    public static func owner(of room: RoomID, among count: Int) -> Int {
        let digits = room.rawValue.filter { $0 != "-" }
        return Int(digits).map { $0 % max(1, count) } ?? 0
    }

    public func owns(_ room: RoomID) -> Bool { Self.owner(of: room, among: count) == index }
}
