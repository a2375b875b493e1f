import ConfMedia
import Foundation
import Testing

/// Video between real processes: a moving test pattern, VP8 at the room's resolution, RTP over
/// SRTP, reassembled and recorded to IVF on the other side.
@Suite struct VideoTests {
    /// The frames of an IVF file.
    static func frames(_ path: String) throws -> (width: Int, height: Int, frames: [[UInt8]]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count >= 32, Array(bytes.prefix(4)) == Array("DKIF".utf8) else { throw TestFailure("\(path) is not IVF") }
        let width = Int(bytes[12]) | Int(bytes[13]) << 8, height = Int(bytes[14]) | Int(bytes[15]) << 8
        var frames: [[UInt8]] = []
        var offset = 32
        while offset + 12 <= bytes.count {
            let size = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            guard offset + 12 + size <= bytes.count else { break }
            frames.append(Array(bytes[(offset + 12)..<(offset + 12 + size)]))
            offset += 12 + size
        }
        return (width, height, frames)
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

    /// `--video-view terminal` in a real pseudo-terminal (script(1)): the alternate screen, true
    /// colour half blocks of the peer's picture, the last event at the bottom, the screen restored.
    @Test func videoIsDrawnInTheTerminal() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--resolution", "240p", "--video-source", "pattern"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String)
        let transcript = FileManager.default.temporaryDirectory.appendingPathComponent("conf-view-\(UUID().uuidString.prefix(8)).out")
        defer { try? FileManager.default.removeItem(at: transcript) }
        let join = command.replacingOccurrences(of: "conf join", with: ConfProcess.executable.path + " join")
        let viewer = Process()
        viewer.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        viewer.arguments = ["-qec", "stty cols 100 rows 30; \(join) --as bob --duration 3 --video-view terminal", transcript.path]
        viewer.environment = ProcessInfo.processInfo.environment.merging(["CONF_AUDIO_SOURCE": "silence", "CONF_AUDIO_SINK": "none",
                                                                           "XDG_CONFIG_HOME": "/nonexistent"]) { $1 }
        viewer.standardOutput = FileHandle.nullDevice
        viewer.standardError = FileHandle.nullDevice
        try viewer.run()
        #expect(ConfProcess.waitUntil(timeout: .seconds(20)) { !viewer.isRunning })
        viewer.waitUntilExit()
        #expect(viewer.terminationStatus == 0)
        let screen = String(decoding: try Data(contentsOf: transcript), as: UTF8.self)
        #expect(screen.contains("\u{1B}[?1049h") && screen.contains("\u{1B}[?1049l"))
        #expect(screen.components(separatedBy: "m▀").count > 1000, "no picture drawn")
        #expect(screen.contains("ann (p1)") && screen.contains("connected to ann"))
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
    }
}
