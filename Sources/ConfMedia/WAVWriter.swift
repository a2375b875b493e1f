#if canImport(Glibc)
import Glibc
#endif

/// Writes 48 kHz mono 16-bit WAV as audio arrives, into a new file (never over an existing one).
///
/// The header's sizes always describe what is on disk: they are rewritten each second of audio
/// (so a reader, or a crash, sees a valid file), at `close()`, and when a write fails. After a
/// failed write (disk full, file size limit) the file is cut back to whole samples, its header
/// made to match, and the writer stops: later appends do nothing.
public final class WAVWriter {
    static let headerSize = 44
    private let file: RecordingFile
    private var samplesWritten = 0
    private var finished = false

    public var path: String { file.path }
    /// Samples on disk.
    public var samples: Int { samplesWritten }

    public init(path: String) throws(RecordingError) {
        file = try RecordingFile(creating: path)
        do {
            try file.append(header())
        } catch {
            file.remove()  // not even a header fits: leave no broken file behind
            throw error
        }
    }

    deinit { close() }

    /// Appends `samples`; throws once, for the write that failed, and writes nothing after.
    public func append(_ samples: [Int16]) throws(RecordingError) {
        guard !finished, !samples.isEmpty else { return }
        let bytes = samples.map { $0.littleEndian }.withUnsafeBytes { Array($0) }
        guard Self.headerSize + (samplesWritten + samples.count) * 2 <= Int(UInt32.max) else {
            finish()  // a RIFF file's sizes are 32-bit: past 4 GiB (12 hours) the header could not tell the truth
            throw RecordingError(path: file.path, code: EFBIG)
        }
        let before = samplesWritten / AudioFormat.sampleRate
        do {
            try file.append(bytes)
        } catch {
            // Keep whole samples only, and a header that says so.
            let data = (file.size - Self.headerSize) & ~1
            file.truncate(to: Self.headerSize + data)
            samplesWritten = data / 2
            finish()
            throw error
        }
        samplesWritten += samples.count
        if samplesWritten / AudioFormat.sampleRate != before { try? file.overwrite(header(), at: 0) }
    }

    public func close() { finish() }

    private func finish() {
        guard !finished else { return }
        finished = true
        try? file.overwrite(header(), at: 0)
        file.close()
    }

    private func header() -> [UInt8] {
        let dataBytes = samplesWritten * 2
        var header: [UInt8] = Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVEfmt ".utf8) + le32(16)
        header += le16(1) + le16(1) + le32(AudioFormat.sampleRate) + le32(AudioFormat.sampleRate * 2) + le16(2) + le16(16)
        return header + Array("data".utf8) + le32(dataBytes)
    }

    private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
}
