/// The stream header of a YUV4MPEG2 file (`.y4m`, as written by ffmpeg, x264 and GStreamer's
/// y4menc): the line `YUV4MPEG2 W640 H480 F30000:1001 Ip A1:1 C420jpeg`, then frames, each a
/// `FRAME` line and the planes. conf reads 8-bit 4:2:0 progressive video only (what cameras and
/// the test sequences give); everything else is refused by name. A file is input from the user:
/// every field is checked and bounded.
public struct Y4MHeader: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Frames per second as a fraction; nil when the header does not say.
    public var rate: (numerator: Int, denominator: Int)?
    /// Bytes of the header line, its newline included: where the first frame starts.
    public var length: Int

    public static let maximumLineLength = 1024
    public static let maximumSide = 8192

    /// The planes of one frame: luma, then the two quarter-size chroma planes.
    public var frameBytes: Int { width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }

    public static func == (a: Y4MHeader, b: Y4MHeader) -> Bool {
        a.width == b.width && a.height == b.height && a.length == b.length
            && a.rate?.numerator == b.rate?.numerator && a.rate?.denominator == b.rate?.denominator
    }

    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The header at the start of `bytes` (which may hold more of the file).
    public static func parse(_ bytes: [UInt8]) throws(Problem) -> Y4MHeader {
        let magic = Array("YUV4MPEG2".utf8)
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else {
            throw Problem(description: "not a YUV4MPEG2 (.y4m) file: it does not start with YUV4MPEG2")
        }
        guard let newline = bytes.prefix(maximumLineLength).firstIndex(of: 0x0A) else {
            throw Problem(description: "the .y4m header line does not end within \(maximumLineLength) bytes")
        }
        var width: Int?, height: Int?, rate: (Int, Int)?
        for field in bytes[magic.count..<newline].split(separator: 0x20) {
            let value = String(decoding: field.dropFirst(), as: UTF8.self)
            switch field.first {
            case UInt8(ascii: "W"): width = try side(value, "width")
            case UInt8(ascii: "H"): height = try side(value, "height")
            case UInt8(ascii: "F"):
                let parts = value.split(separator: ":")
                guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0, n <= 1_000_000, d <= 1_000_000 else {
                    throw Problem(description: "the .y4m frame rate 'F\(value)' is not N:D with positive N and D")
                }
                rate = (n, d)
            case UInt8(ascii: "I"):
                guard value == "p" || value == "?" else {
                    throw Problem(description: "the .y4m file is interlaced (I\(value)); conf reads progressive video only")
                }
            case UInt8(ascii: "C"):
                guard ["420", "420jpeg", "420paldv", "420mpeg2"].contains(value) else {
                    throw Problem(description: "the .y4m colour space C\(value) is not 8-bit 4:2:0; convert it, e.g. ffmpeg -i IN -pix_fmt yuv420p OUT.y4m")
                }
            default:
                break  // A (aspect), X (application data): nothing for us
            }
        }
        guard let width, let height else { throw Problem(description: "the .y4m header gives no size (W and H)") }
        return Y4MHeader(width: width, height: height, rate: rate, length: newline + 1)
    }

    private static func side(_ text: String, _ name: String) throws(Problem) -> Int {
        guard let value = Int(text), value >= 2, value <= maximumSide else {
            throw Problem(description: "the .y4m \(name) '\(text)' is not a number from 2 to \(maximumSide)")
        }
        return value
    }
}
