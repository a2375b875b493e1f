/// Sizes of packets on the wire as the congestion code takes them: 0...1 MiB. A UDP datagram holds
/// at most 64 KiB, so the clamp only bites on nonsense, and it keeps every sum of sizes far from
/// overflowing.
enum WireSize {
    static let largest = 1 << 20

    static func clamped(_ size: Int) -> Int { min(largest, max(0, size)) }
}
