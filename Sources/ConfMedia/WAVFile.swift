#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing WAV (RIFF/WAVE) files: PCM 8/16/24/32-bit or 32-bit float, any rate and
/// channel count in; 48 kHz mono 16-bit out.
public enum WAVFile {
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The file's audio as 48 kHz mono 16-bit samples (channels averaged, rate converted linearly).
    public static func read(path: String) throws(Problem) -> [Int16] {
        guard let file = fopen(path, "rb") else {
            throw Problem(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            bytes += chunk[..<n]
            if bytes.count > 512 * 1024 * 1024 { throw Problem(description: "\(path) is larger than 512 MiB") }
        }
        return try decode(bytes, name: path)
    }

    static func decode(_ bytes: [UInt8], name: String) throws(Problem) -> [Int16] {
        func le16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        func le32(_ i: Int) -> Int { le16(i) | le16(i + 2) << 16 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw Problem(description: "\(name) is not a WAV file (no RIFF/WAVE header)")
        }
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var data: Range<Int>?
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = le32(offset + 4)
            let body = (offset + 8)..<min(bytes.count, offset + 8 + size)
            if bytes[offset..<(offset + 4)].elementsEqual("fmt ".utf8), body.count >= 16 {
                var tag = le16(body.lowerBound)
                if tag == 0xFFFE, body.count >= 26 { tag = le16(body.lowerBound + 24) }  // WAVE_FORMAT_EXTENSIBLE
                format = (tag, le16(body.lowerBound + 2), le32(body.lowerBound + 4), le16(body.lowerBound + 14))
            } else if bytes[offset..<(offset + 4)].elementsEqual("data".utf8) {
                data = body
            }
            offset += 8 + size + (size & 1)
        }
        guard let format else { throw Problem(description: "\(name) has no fmt chunk") }
        guard let data else { throw Problem(description: "\(name) has no data chunk") }
        guard (1...32).contains(format.channels), (1_000...768_000).contains(format.rate) else {
            throw Problem(description: "\(name): \(format.channels) channels at \(format.rate) Hz is not usable")
        }
        let isFloat = format.tag == 3
        guard (format.tag == 1 && [8, 16, 24, 32].contains(format.bits)) || (isFloat && format.bits == 32) else {
            throw Problem(description: "\(name): only PCM (8, 16, 24, 32-bit) and 32-bit float WAV files are supported")
        }
        let width = format.bits / 8
        let frameBytes = width * format.channels
        let frames = data.count / frameBytes
        var mono = [Double](repeating: 0, count: frames)
        for f in 0..<frames {
            var sum = 0.0
            for c in 0..<format.channels {
                let i = data.lowerBound + f * frameBytes + c * width
                switch (format.bits, isFloat) {
                case (8, _): sum += (Double(bytes[i]) - 128) / 128
                case (16, _): sum += Double(Int16(bitPattern: UInt16(le16(i)))) / 32768
                case (24, _): sum += Double(Int32(bitPattern: UInt32(le16(i) | Int(bytes[i + 2]) << 16) << 8) >> 8) / 8_388_608
                case (32, false): sum += Double(Int32(bitPattern: UInt32(le32(i)))) / 2_147_483_648
                default: sum += Double(Float(bitPattern: UInt32(le32(i))))
                }
            }
            mono[f] = sum / Double(format.channels)
        }
        let ratio = Double(format.rate) / Double(AudioFormat.sampleRate)
        let outCount = Int(Double(frames) / ratio)
        return (0..<outCount).map { n in
            let position = Double(n) * ratio
            let i = Int(position)
            let fraction = position - Double(i)
            let a = mono[min(i, frames - 1)], b = mono[min(i + 1, frames - 1)]
            return Int16(clamping: Int(((a + (b - a) * fraction) * 32768).rounded()))
        }
    }
}
