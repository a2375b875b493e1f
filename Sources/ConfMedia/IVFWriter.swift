/// Writes VP8 frames to an IVF file (the container libvpx's tools read), new (never over an
/// existing file): a 32-byte header, then each frame with a 12-byte header (size, 64-bit
/// timestamp in the header's timebase).
///
/// The header's frame count always matches the complete frames on disk: it is rewritten each
/// second of timestamps, at `close()`, and when a write fails. After a failed write (disk full,
/// file size limit) the partial frame is cut off and the writer stops: later appends do nothing.
public final class IVFWriter {
    static let headerSize = 32
    private let file: RecordingFile
    private let timebase: (numerator: UInt32, denominator: UInt32)
    private var frames: UInt32 = 0
    private var lastCountedSecond: UInt64 = 0
    private var finished = false

    public var path: String { file.path }
    /// Complete frames on disk.
    public var frameCount: Int { Int(frames) }

    public init(path: String, width: Int, height: Int, timebase: (numerator: UInt32, denominator: UInt32) = (1, 90_000)) throws(RecordingError) {
        file = try RecordingFile(creating: path)
        self.timebase = timebase
        var header = Array("DKIF".utf8) + le16(0) + le16(UInt16(Self.headerSize)) + Array("VP80".utf8)
        header += le16(UInt16(clamping: width)) + le16(UInt16(clamping: height))
        header += le32(timebase.denominator) + le32(timebase.numerator) + le32(0) + le32(0)
        do {
            try file.append(header)
        } catch {
            file.remove()  // not even a header fits: leave no broken file behind
            throw error
        }
    }

    deinit { close() }

    /// Appends one frame at `timestamp` (in the timebase; callers keep it increasing). Throws
    /// once, for the write that failed, and writes nothing after.
    public func append(_ frame: [UInt8], timestamp: UInt64) throws(RecordingError) {
        guard !finished else { return }
        let start = file.size
        do {
            try file.append(le32(UInt32(clamping: frame.count)) + le32(UInt32(timestamp & 0xFFFF_FFFF)) + le32(UInt32(timestamp >> 32)) + frame)
        } catch {
            file.truncate(to: start)
            finish()
            throw error
        }
        frames += 1
        let second = timestamp * UInt64(timebase.numerator) / UInt64(max(timebase.denominator, 1))
        if second != lastCountedSecond {
            lastCountedSecond = second
            writeFrameCount()
        }
    }

    public func close() { finish() }

    private func finish() {
        guard !finished else { return }
        finished = true
        writeFrameCount()
        file.close()
    }

    private func writeFrameCount() { try? file.overwrite(le32(frames), at: 24) }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
}
