/// Packs packet status symbols into a transport feedback's packet chunks
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 sections 3.1.1 to 3.1.4), one symbol at a
/// time, so that a builder knows the size of what it has so far without encoding it twice.
///
///     symbols:   00 not received, 01 received with a small delta, 10 received with a large or
///                negative delta, 11 reserved
///
///     run length chunk:          status vector chunk:
///      0                   1      0                   1
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |T| S |       Run Length        |    |T|S|       symbol list         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///      T=0, S the symbol, run 13 bits       T=1; S=0: 14 one-bit symbols (0 or 1 only),
///                                           S=1: 7 two-bit symbols; first symbol leftmost
///
/// The choice: symbols wait until they no longer fit one chunk. A wait of identical symbols
/// becomes a run (up to 8191); a mixed one of 14 symbols without large deltas a one-bit vector;
/// otherwise its first 7 go out as a two-bit vector and the rest keep waiting. So every chunk but
/// the last carries at least 7 statuses.
struct PacketStatusChunkWriter: Sendable {
    static let notReceived: UInt8 = 0
    static let smallDelta: UInt8 = 1
    static let largeDelta: UInt8 = 2
    static let maximumRunLength = 0x1FFF

    private(set) var chunks: [UInt16] = []
    /// Waiting symbols, the first in bits 0-1; only the first 14 are kept (beyond 14 the wait is
    /// a run, and `count` alone describes it).
    private var waiting: UInt32 = 0
    private var count = 0
    private var allSame = true
    private var hasLargeDelta = false

    /// The chunks once everything waiting is written too.
    var chunkCount: Int { chunks.count + (count > 0 ? 1 : 0) }

    /// The chunk count after `add(symbol)`, without adding it.
    func chunkCount(adding symbol: UInt8) -> Int { chunks.count + (fits(symbol) ? 0 : 1) + 1 }

    mutating func add(_ symbol: UInt8) {
        if !fits(symbol) { writeWaiting() }
        if count < 14 { waiting |= UInt32(symbol & 3) << (2 * count) }
        if count > 0 && symbol != first { allSame = false }
        if symbol == Self.largeDelta { hasLargeDelta = true }
        count += 1
    }

    /// All chunks, the waiting symbols included.
    mutating func finish() -> [UInt16] {
        guard count > 0 else { return chunks }
        if allSame {
            chunks.append(UInt16(first) << 13 | UInt16(count))
        } else if count <= 7 {
            chunks.append(twoBitVector(count))
        } else {
            chunks.append(oneBitVector(count))
        }
        reset(keepingFrom: count)
        return chunks
    }

    private var first: UInt8 { UInt8(waiting & 3) }

    private func symbol(_ index: Int) -> UInt8 { UInt8(waiting >> (2 * index) & 3) }

    private func fits(_ symbol: UInt8) -> Bool {
        if count < 7 { return true }
        if count < 14 && !hasLargeDelta && symbol != Self.largeDelta { return true }
        return allSame && symbol == first && count < Self.maximumRunLength
    }

    /// Called when the next symbol does not fit: `count` is at least 7.
    private mutating func writeWaiting() {
        if allSame {
            chunks.append(UInt16(first) << 13 | UInt16(count))
            reset(keepingFrom: count)
        } else if count == 14 {
            chunks.append(oneBitVector(14))  // 14 mixed symbols are reachable only without large deltas
            reset(keepingFrom: 14)
        } else {
            chunks.append(twoBitVector(7))
            reset(keepingFrom: 7)
        }
    }

    /// T=1, S=1, then the first `used` symbols two bits each from the left; unused slots are 00.
    private func twoBitVector(_ used: Int) -> UInt16 {
        var chunk: UInt16 = 0xC000
        for i in 0..<used { chunk |= UInt16(symbol(i)) << (12 - 2 * i) }
        return chunk
    }

    /// T=1, S=0, then the first `used` symbols one bit each from the left (1: received, small delta).
    private func oneBitVector(_ used: Int) -> UInt16 {
        var chunk: UInt16 = 0x8000
        for i in 0..<used where symbol(i) == Self.smallDelta { chunk |= 1 << (13 - i) }
        return chunk
    }

    /// Drops the first `written` waiting symbols; the ones after them (fewer than 7) keep waiting.
    private mutating func reset(keepingFrom written: Int) {
        let kept = count - written
        let rest = kept > 0 ? waiting >> (2 * written) : 0
        waiting = 0
        count = 0
        allSame = true
        hasLargeDelta = false
        for i in 0..<kept { add(UInt8(rest >> (2 * i) & 3)) }
    }
}
