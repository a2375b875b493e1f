#if canImport(Glibc)
import Glibc
#endif

/// Reads a `.y4m` file's frames one after another, from the start again after the last (a
/// looped clip). A frame cut short or a damaged `FRAME` line ends the pass as the end of the file
/// does; a file that yields no frame at all in a pass gives nil from then on.
///
/// Threading: one thread at a time.
public final class Y4MReader {
    public let header: Y4MHeader
    public let path: String
    private let file: UnsafeMutablePointer<FILE>
    private var framesThisPass = 0
    private var exhausted = false
    /// Passes over the file that ended early (a damaged or cut-short frame), for diagnostics.
    public private(set) var damagedPasses = 0

    public init(path: String) throws(Y4MHeader.Problem) {
        guard let file = fopen(path, "rb") else {
            throw Y4MHeader.Problem(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var start = [UInt8](repeating: 0, count: Y4MHeader.maximumLineLength)
        let count = fread(&start, 1, start.count, file)
        do {
            header = try Y4MHeader.parse(Array(start[..<count]))
        } catch {
            fclose(file)
            throw Y4MHeader.Problem(description: "\(path): \(error.description)")
        }
        self.file = file
        self.path = path
        fseeko(file, off_t(header.length), SEEK_SET)
    }

    deinit { fclose(file) }

    /// The next frame at the file's own size; nil when the file holds none.
    public func nextFrame() -> VideoFrame? {
        guard !exhausted else { return nil }
        if let frame = readFrame() {
            framesThisPass += 1
            return frame
        }
        // The end of a pass: from the first frame again, unless this pass found none.
        let hadFrames = framesThisPass > 0
        framesThisPass = 0
        fseeko(file, off_t(header.length), SEEK_SET)
        guard hadFrames, let frame = readFrame() else {
            exhausted = true
            return nil
        }
        framesThisPass = 1
        return frame
    }

    private func readFrame() -> VideoFrame? {
        // "FRAME", optional parameters, newline: at most a line's length.
        var line: [UInt8] = []
        while line.count < Y4MHeader.maximumLineLength {
            let byte = fgetc(file)
            if byte == EOF { return nil }
            if byte == 0x0A { break }
            line.append(UInt8(byte))
        }
        guard line.starts(with: Array("FRAME".utf8)), line.count < Y4MHeader.maximumLineLength else {
            damagedPasses += 1
            return nil
        }
        let width = header.width, height = header.height
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 0, count: chroma)
        var v = [UInt8](repeating: 0, count: chroma)
        guard fread(&y, 1, y.count, file) == y.count, fread(&u, 1, u.count, file) == u.count, fread(&v, 1, v.count, file) == v.count else {
            damagedPasses += 1
            return nil
        }
        return VideoFrame(width: width, height: height, y: y, u: u, v: v)
    }
}
