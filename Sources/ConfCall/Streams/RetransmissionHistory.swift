import ConfWire

/// The packets a stream sent lately (plain RTP, before SRTP), kept for retransmission when the
/// receiver NACKs them (RFC 4585 section 6.2.1). A ring of the last `capacity` packets: recording
/// one more evicts the oldest. Sequence numbers are recorded in sending order, one apart, so a
/// lookup is an offset from the newest, checked against the slot's own number.
struct RetransmissionHistory: Sendable {
    let capacity: Int
    private var slots: [(sequence: SequenceNumber, bytes: [UInt8])?]
    private var nextSlot = 0
    private var newest: SequenceNumber?

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots = Array(repeating: nil, count: self.capacity)
    }

    mutating func record(_ sequence: SequenceNumber, _ bytes: [UInt8]) {
        slots[nextSlot] = (sequence, bytes)
        nextSlot = (nextSlot + 1) % capacity
        newest = sequence
    }

    /// The packet sent with `sequence`, or nil when it was never sent or has been evicted.
    func packet(_ sequence: SequenceNumber) -> [UInt8]? {
        guard let newest else { return nil }
        let back = sequence.distance(to: newest)
        guard back >= 0, back < capacity else { return nil }
        let slot = ((nextSlot - 1 - back) % capacity + capacity) % capacity
        guard let entry = slots[slot], entry.sequence == sequence else { return nil }
        return entry.bytes
    }
}
