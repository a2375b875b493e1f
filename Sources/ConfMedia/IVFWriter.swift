#if canImport(Glibc)
import Glibc
#endif

/// Writes VP8 frames to an IVF file (the container libvpx's tools read): a 32-byte header, then
/// each frame with a 12-byte header (size, 64-bit timestamp). The frame count in the header is
/// fixed on `close()`.
public final class IVFWriter {
    private let file: UnsafeMutablePointer<FILE>
    private var frames: UInt32 = 0
    private var closed = false

    public init(path: String, width: Int, height: Int, timebase: (numerator: UInt32, denominator: UInt32) = (1, 90_000)) throws(WAVFile.Problem) {
        guard let file = fopen(path, "wb") else {
            throw WAVFile.Problem(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        self.file = file
        var header = Array("DKIF".utf8) + le16(0) + le16(32) + Array("VP80".utf8) + le16(UInt16(width)) + le16(UInt16(height))
        header += le32(timebase.denominator) + le32(timebase.numerator) + le32(0) + le32(0)
        _ = fwrite(header, 1, header.count, file)
    }

    deinit { close() }

    public func append(_ frame: [UInt8], timestamp: UInt64) {
        guard !closed else { return }
        let header = le32(UInt32(frame.count)) + le32(UInt32(timestamp & 0xFFFF_FFFF)) + le32(UInt32(timestamp >> 32))
        _ = fwrite(header, 1, header.count, file)
        _ = fwrite(frame, 1, frame.count, file)
        frames += 1
    }

    public func close() {
        guard !closed else { return }
        closed = true
        fseek(file, 24, SEEK_SET)
        let count = le32(frames)
        _ = fwrite(count, 1, count.count, file)
        fclose(file)
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
}
