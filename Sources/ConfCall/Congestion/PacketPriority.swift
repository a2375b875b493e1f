/// The order in which a pacer sends what waits in it (libwebrtc's: audio, retransmissions, video).
/// Audio is never held: it leaves at the next poll whatever the budget, and only its bytes count.
public enum PacketPriority: Int, Sendable, CaseIterable, Comparable {
    case audio, retransmission, video

    public static func < (a: PacketPriority, b: PacketPriority) -> Bool { a.rawValue < b.rawValue }
}
