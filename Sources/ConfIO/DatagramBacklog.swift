/// Datagrams an ICE transport could not send yet (no pair selected), in order, bounded: when full,
/// the oldest go first and are counted. Pure; the transport flushes it when a pair works.
public struct DatagramBacklog: Sendable {
    public static let maxDatagrams = 64
    public static let maxBytes = 256 * 1024

    private var queued: [[UInt8]] = []
    public private(set) var bytes = 0
    /// Datagrams dropped because the backlog was full.
    public private(set) var dropped = 0

    public init() {}

    public var count: Int { queued.count }
    public var isEmpty: Bool { queued.isEmpty }

    public mutating func append(_ datagram: [UInt8]) {
        queued.append(datagram)
        bytes += datagram.count
        while queued.count > Self.maxDatagrams || bytes > Self.maxBytes {
            bytes -= queued.removeFirst().count
            dropped += 1
        }
    }

    /// Sends the oldest first until `send` says it could not; those stay, in order.
    public mutating func flush(_ send: ([UInt8]) -> Bool) {
        var sent = 0
        for datagram in queued {
            guard send(datagram) else { break }
            sent += 1
            bytes -= datagram.count
        }
        queued.removeFirst(sent)
    }

    /// Forgets what is queued (the transport is closing): not counted as dropped.
    public mutating func removeAll() {
        queued.removeAll()
        bytes = 0
    }
}
