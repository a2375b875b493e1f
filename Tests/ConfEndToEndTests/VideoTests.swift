import ConfMedia
import Foundation
import Testing

/// Video between real processes: a moving test pattern, VP8 at the room's resolution, RTP over
/// SRTP, reassembled and recorded to IVF on the other side.
@Suite struct VideoTests {
    /// An IVF file's picture size, frames and their timestamps (the recorder's 90 kHz clock).
    static func frames(_ path: String) throws -> (width: Int, height: Int, frames: [[UInt8]], timestamps: [UInt64]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count >= 32, Array(bytes.prefix(4)) == Array("DKIF".utf8) else { throw TestFailure("\(path) is not IVF") }
        let width = Int(bytes[12]) | Int(bytes[13]) << 8, height = Int(bytes[14]) | Int(bytes[15]) << 8
        var frames: [[UInt8]] = []
        var timestamps: [UInt64] = []
        var offset = 32
        while offset + 12 <= bytes.count {
            let size = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            guard offset + 12 + size <= bytes.count else { break }
            frames.append(Array(bytes[(offset + 12)..<(offset + 12 + size)]))
            timestamps.append((0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + 4 + $1]) << (8 * UInt64($1)) })
            offset += 12 + size
        }
        return (width, height, frames, timestamps)
    }

    @Test func aTestPatternArrivesDecodableAtTheRoomsResolution() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-video-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--resolution", "240p", "--video-source", "pattern"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        let guest = try ConfProcess(command + ["--as", "bob", "--json", "--record", dir.path])
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15)) != nil)
        let file = dir.appendingPathComponent("ann.ivf").path
        // Two seconds of video at 15 frames a second.
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { ((try? Self.frames(file).frames.count) ?? 0) >= 30 })
        guest.signal(SIGTERM)
        host.signal(SIGTERM)
        #expect(guest.waitForExit() == 0 && host.waitForExit() == 0)
        let recording = try Self.frames(file)
        #expect(recording.frames.first.map { $0[0] & 0x01 == 0 } == true, "the recording starts with a key frame")
        #expect(recording.width == 320 && recording.height == 240, "the IVF header declares the room's size")
        let decoder = try VP8Decoder()
        var decoded = 0
        for frame in recording.frames {
            if let picture = decoder.decode(frame) {
                #expect(picture.width == 320 && picture.height == 240)
                decoded += 1
            }
        }
        #expect(decoded == recording.frames.count)
    }

    /// `--video-source file:PATH.y4m`: a clip of seven flat grey frames (luma 20 to 230), looped,
    /// reaches the peer as those pictures, in that order, again and again. A link may drop its upper
    /// temporal layers for a while (its estimate reads a busy machine's scheduling delay as a
    /// queue), so a picture may skip ahead by up to three frames, never back: with seven levels a
    /// skip of up to three cannot be mistaken for a step back.
    @Test func aY4MClipIsSentLooped() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-y4m-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let levels: [UInt8] = [20, 55, 90, 125, 160, 195, 230]
        var clip = Array("YUV4MPEG2 W320 H240 F15:1 Ip C420jpeg\n".utf8)
        for level in levels {
            clip += Array("FRAME\n".utf8) + [UInt8](repeating: level, count: 320 * 240) + [UInt8](repeating: 128, count: 2 * 160 * 120)
        }
        let clipPath = dir.appendingPathComponent("grey.y4m").path
        try Data(clip).write(to: URL(fileURLWithPath: clipPath))
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--resolution", "240p",
                                    "--video-source", "file:\(clipPath)"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        let guest = try ConfProcess(command + ["--as", "bob", "--json", "--record", dir.path])
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15)) != nil)
        let file = dir.appendingPathComponent("ann.ivf").path
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { ((try? Self.frames(file).frames.count) ?? 0) >= 30 })
        guest.signal(SIGTERM)
        host.signal(SIGTERM)
        #expect(guest.waitForExit() == 0 && host.waitForExit() == 0)
        let decoder = try VP8Decoder()
        // Each decoded picture's mean luma, as the nearest of the clip's levels.
        let seen = try Self.frames(file).frames.compactMap { frame -> Int? in
            guard let picture = decoder.decode(frame) else { return nil }
            let mean = Double(picture.y.reduce(0) { $0 + Int($1) }) / Double(picture.y.count)
            return levels.indices.min { abs(Double(levels[$0]) - mean) < abs(Double(levels[$1]) - mean) }
        }
        #expect(seen.count >= 30)
        // After the first few (the encoder settles), each picture is one of the clip's next four.
        let steady = Array(seen.dropFirst(3))
        let steps = zip(steady, steady.dropFirst()).map { ($1 - $0 + levels.count) % levels.count }
        #expect(steps.allSatisfy { (1...4).contains($0) }, "levels as received: \(seen)")
        #expect(Set(steady) == Set(levels.indices))
    }

    @Test func aClipThatCannotBeReadIsAnErrorBeforeTheCall() throws {
        let missing = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1", "--video-source", "file:/nonexistent.y4m"])
        #expect(missing.waitForExit() == 2)
        #expect(missing.stderr.contains("cannot open /nonexistent.y4m"), "\(missing.stderr)")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("conf-444-\(UUID().uuidString.prefix(8)).y4m").path
        try Data("YUV4MPEG2 W64 H48 C444\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let unsupported = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1", "--video-source", "file:\(path)", "--json"])
        #expect(unsupported.waitForExit() == 2)
        #expect(unsupported.stderr.contains("C444 is not 8-bit 4:2:0"), "\(unsupported.stderr)")
        #expect(unsupported.events(ofType: "error").first?["code"] as? String == "bad-video-file")
    }

    /// A terminal that announces 24-bit colour, whatever the test runner set (it sets NO_COLOR,
    /// with which the pictures are drawn in characters, not half blocks).
    static let trueColourTerminal = ["NO_COLOR": "", "COLORTERM": "truecolor", "TERM": "xterm-256color"]

    /// `--video-view terminal` in a real pseudo-terminal (script(1)): the alternate screen, true
    /// colour half blocks of the peer's picture, the last event at the bottom, the screen restored.
    @Test func videoIsDrawnInTheTerminal() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--resolution", "240p", "--video-source", "pattern"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String)
        let viewer = try TerminalTranscript(joinCommand: command, arguments: "--as bob --duration 3 --video-view terminal --ui lines", columns: 100, rows: 30,
                                            environment: Self.trueColourTerminal)
        #expect(viewer.waitForExit() == 0)
        let screen = viewer.text
        #expect(screen.contains("\u{1B}[?1049h") && screen.contains("\u{1B}[?1049l"))
        #expect(screen.components(separatedBy: "▀").count > 2000, "no whole picture drawn (74x28 cells)")
        let ann = host.waitForEvent("joined")?["you"] as? String ?? "p1"  // p2 when bob's join came first
        #expect(screen.contains("ann (\(ann))") && screen.contains("connected to ann"))
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
    }

    /// A 1000x300 terminal and a picture whose every pixel changes each frame (pattern:noisy):
    /// the view writes at most about 2 MB a second, however large the terminal (it wrote 120 MB
    /// in 3 s before it counted its bytes).
    @Test func aHugeTerminalGetsFewerFramesNotMegabytes() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--resolution", "480p", "--video-source", "pattern:noisy"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String)
        let viewer = try TerminalTranscript(joinCommand: command, arguments: "--as bob --duration 4 --video-view terminal --ui lines", columns: 1000, rows: 300,
                                            environment: Self.trueColourTerminal)
        #expect(viewer.waitForExit() != nil)
        let bytes = viewer.bytes
        let cells = String(decoding: bytes, as: UTF8.self).components(separatedBy: "▀").count - 1
        #expect(cells > 50_000, "the picture was drawn: \(cells) cells")
        // One whole 640x240-cell picture is about 7 MB; then 2 MB a second for the rest.
        #expect(bytes.count < 16_000_000, "\(bytes.count) bytes in 4 s")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
    }
}
