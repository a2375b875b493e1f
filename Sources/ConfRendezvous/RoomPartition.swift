import ConfWire

/// Rooms split across rendezvous instances by their id, with no shared state (docs/DEPLOY.md):
/// instance `index` of `count` mints only ids that start with its index — one digit when there are
/// at most 10 instances, two when there are up to 100 — and refuses ids that do not. A load
/// balancer sends room creation to any instance and everything for a room to the instance its id
/// names (`/v1/ws?room=ID` carries the id where the balancer can read it).
public struct RoomPartition: Equatable, Sendable {
    public let index: Int
    public let count: Int

    public static let maximumCount = 100

    public init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maximumCount, index >= 0, index < count else { return nil }
        (self.index, self.count) = (index, count)
    }

    /// `K/N`: instance K (from 0) of N.
    public static func parse(_ text: String) -> RoomPartition? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) && $0.count <= 3 }),
              let index = Int(parts[0]), let count = Int(parts[1])
        else { return nil }
        return RoomPartition(index: index, count: count)
    }

    /// The digits every room id of this instance starts with.
    public var prefix: String {
        let digits = count <= 10 ? 1 : 2
        let text = String(index)
        return String(repeating: "0", count: digits - text.count) + text
    }

    public func owns(_ room: RoomID) -> Bool { room.rawValue.hasPrefix(prefix) }

    /// A room id of this instance, the rest of its eight digits from `randomDigits`.
    public func roomID(randomDigits: (Int) -> String) -> RoomID {
        RoomID(prefix + randomDigits(8 - prefix.count))!
    }

    /// Why `room` is refused here: which instance holds it.
    public func refusal(_ room: RoomID) -> String {
        let digits = prefix.count
        let holder = Int(room.rawValue.prefix(digits)).map { "instance \($0)" } ?? "another instance"
        return "room \(room) is held by \(holder) of \(count), not this one (\(index)): reach the rendezvous through its load balancer"
    }
}
