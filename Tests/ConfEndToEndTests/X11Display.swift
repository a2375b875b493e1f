import Foundation

/// A virtual X display (Xvfb) for one test, with screenshots of it (xwd) and keys typed into a
/// window (xdotool): the video window drawn and driven as a person would see and use it.
final class X11Display {
    static var available: Bool {
        ["/usr/bin/Xvfb", "/usr/bin/xwd", "/usr/bin/xdotool"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `:N`, for DISPLAY.
    let name: String
    private let server = Process()

    /// An RGB picture, row by row.
    struct Screenshot {
        let width: Int, height: Int
        let pixels: [(r: UInt8, g: UInt8, b: UInt8)]
        func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) { pixels[y * width + x] }
    }

    /// Starts Xvfb on a free display number (it says which on the descriptor `-displayfd` names).
    init(width: Int, height: Int) throws {
        server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        server.arguments = ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        try server.run()
        var number = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while !number.hasSuffix("\n"), ContinuousClock.now < deadline {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            guard let character = byte.first else { break }
            number.append(Character(UnicodeScalar(character)))
        }
        guard let display = Int(number.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(server.processIdentifier, SIGKILL)
            throw Problem("Xvfb did not say which display it opened")
        }
        name = ":\(display)"
    }

    /// SIGKILL: an Xvfb started from the test runner inherits a signal mask that blocks SIGTERM.
    deinit {
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The whole screen, read back by xwd (its XWD file: a big-endian header of 25 words, the
    /// window name, the colour map, then ZPixmap rows).
    func screenshot() throws -> Screenshot {
        let data = try run("/usr/bin/xwd", ["-root", "-silent", "-display", name])
        let bytes = [UInt8](data)
        guard bytes.count >= 100 else { throw Problem("xwd gave \(bytes.count) bytes") }
        let word = { (index: Int) in bytes[index * 4 ..< index * 4 + 4].reduce(0) { $0 << 8 | Int($1) } }
        let (headerSize, width, height, byteOrder) = (word(0), word(4), word(5), word(7))
        let (bitsPerPixel, bytesPerLine, colours) = (word(11), word(12), word(19))
        let masks = (word(14), word(15), word(16))
        let start = headerSize + colours * 12
        let pixelBytes = bitsPerPixel / 8
        guard [3, 4].contains(pixelBytes), bytes.count >= start + bytesPerLine * height else { throw Problem("an XWD file conf cannot read") }
        let channel = { (value: Int, mask: Int) in UInt8((value & mask) >> mask.trailingZeroBitCount & 0xFF) }
        var pixels: [(r: UInt8, g: UInt8, b: UInt8)] = []
        pixels.reserveCapacity(width * height)
        for y in 0..<height {
            for x in 0..<width {
                let at = start + y * bytesPerLine + x * pixelBytes
                let raw = bytes[at ..< at + pixelBytes]
                let value = byteOrder == 0 ? raw.reversed().reduce(0) { $0 << 8 | Int($1) } : raw.reduce(0) { $0 << 8 | Int($1) }
                pixels.append((channel(value, masks.0), channel(value, masks.1), channel(value, masks.2)))
            }
        }
        return Screenshot(width: width, height: height, pixels: pixels)
    }

    /// Types `key` into the first window whose title matches `title` (focused first: there is no
    /// window manager to do it); an error after 10 s without such a window.
    func type(_ key: String, intoWindowNamed title: String) throws {
        _ = try run("/usr/bin/timeout", ["10", "/usr/bin/xdotool", "search", "--sync", "--name", title, "windowfocus", "--sync", "key", key])
    }

    private func run(_ program: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ["DISPLAY": name, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Problem("\(program) \(arguments) exited with \(process.terminationStatus)") }
        return data
    }
}
