import Synchronization

/// A single-producer, single-consumer ring of 16-bit samples, lock-free: the PulseAudio thread
/// writes captured audio (or reads audio to play) while the event loop does the other side. Neither
/// side ever blocks; a full ring drops what does not fit and counts it.
public final class AudioRing: @unchecked Sendable {
    public let capacity: Int
    private let storage: UnsafeMutablePointer<Int16>
    /// Total samples ever written / read; positions are these modulo capacity.
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    public init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    public var available: Int { written.load(ordering: .acquiring) - read.load(ordering: .acquiring) }
    public var droppedSamples: Int { dropped.load(ordering: .relaxed) }

    /// Producer side. Returns how many samples fit.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        let w = written.load(ordering: .relaxed)
        let r = read.load(ordering: .acquiring)
        let count = min(samples.count, capacity - (w - r))
        for i in 0..<count { storage[(w + i) % capacity] = samples[i] }
        written.store(w + count, ordering: .releasing)
        if count < samples.count { dropped.add(samples.count - count, ordering: .relaxed) }
        return count
    }

    /// Consumer side: fills `buffer` as far as possible; returns how many samples were read.
    @discardableResult
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let r = read.load(ordering: .relaxed)
        let w = written.load(ordering: .acquiring)
        let count = min(buffer.count, w - r)
        for i in 0..<count { buffer[i] = storage[(r + i) % capacity] }
        read.store(r + count, ordering: .releasing)
        return count
    }
}
