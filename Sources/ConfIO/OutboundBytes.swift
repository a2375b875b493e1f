/// Bytes waiting to be written to a socket, taken from the front as the kernel accepts them.
/// What is written is dropped once it is most of the buffer (so a client that reads steadily but
/// keeps a backlog does not grow it without end), and an emptied buffer keeps little capacity
/// (thousands of idle connections each holding their largest burst would add up).
struct OutboundBytes {
    private var bytes: [UInt8] = []
    private var start = 0
    static let capacityKept = 4_096

    var isEmpty: Bool { start == bytes.count }
    /// Bytes not yet written.
    var count: Int { bytes.count - start }

    mutating func append(_ more: [UInt8]) {
        if start >= Self.capacityKept && start * 2 >= bytes.count {
            bytes.removeSubrange(..<start)
            start = 0
        }
        bytes.append(contentsOf: more)
    }

    /// `body` gets the unwritten bytes; returns what it returns.
    func withUnsent<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }

    /// `n` bytes were written.
    mutating func consume(_ n: Int) {
        start += n
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= Self.capacityKept)
            start = 0
        }
    }
}
