import ConfMedia
import Foundation
import Testing

/// `camera off` / `camera on` and `hide` / `show` between two real processes: the peer is told,
/// the recording of the video stops growing while it is off or hidden, and grows again after.
@Suite struct VideoControlTests {
    @Test func cameraOffAndHideStopTheVideoAndOnAndShowBringItBack() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-camera-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ann = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--resolution", "240p", "--video-source", "pattern"],
                                  interactive: true)
        let command = try #require(ann.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        let bob = try ConfProcess(command + ["--as", "bob", "--json", "--record", dir.path], interactive: true)
        let annID = try #require(ann.waitForEvent("joined")?["you"] as? String)
        #expect(bob.waitForEvent("peer-connected", timeout: .seconds(15)) != nil)
        let file = dir.appendingPathComponent("ann.ivf").path
        func frames() -> Int { (try? VideoTests.frames(file).frames.count) ?? 0 }
        /// Whether the recording grows by `count` frames within `seconds`.
        func grows(by count: Int, within seconds: Int) -> Bool {
            let start = frames()
            return ConfProcess.waitUntil(timeout: .seconds(seconds)) { frames() >= start + count }
        }
        #expect(grows(by: 15, within: 10), "ann's video arrives first")

        ann.send("camera off")
        #expect(ann.waitForEvent("camera")?["on"] as? Bool == false)
        #expect(bob.waitForEvent("peer-video-muted") { $0["peer"] as? String == annID } != nil, "\(bob.stdout)")
        _ = grows(by: 3, within: 1)  // what was on its way lands
        #expect(!grows(by: 3, within: 3), "no video while the camera is off")
        ann.send("camera on")
        #expect(bob.waitForEvent("peer-video-unmuted") { $0["peer"] as? String == annID } != nil)
        #expect(grows(by: 15, within: 10), "video again once the camera is on")

        bob.send("hide \(annID)")
        #expect(bob.waitForEvent("peer-video-hidden")?["hidden"] as? Bool == true)
        _ = grows(by: 3, within: 1)
        #expect(!grows(by: 3, within: 3), "ann stops sending bob her video")
        bob.send("show ann")
        #expect(bob.waitForEvent("peer-video-hidden") { $0["hidden"] as? Bool == false } != nil)
        #expect(grows(by: 15, within: 10), "and sends it again")
        #expect(ann.events(ofType: "peer-disconnected").isEmpty && bob.events(ofType: "peer-disconnected").isEmpty)

        bob.send("camera off")
        #expect(bob.waitForEvent("error")?["code"] as? String == "bad-command", "bob sends no video: \(bob.stdout)")
        ann.signal(SIGTERM)
        bob.signal(SIGTERM)
        #expect(ann.waitForExit() == 0 && bob.waitForExit() == 0)
        // Each pause ended at a key frame: every recorded frame decodes.
        let decoder = try VP8Decoder()
        let recorded = try VideoTests.frames(file).frames
        #expect(recorded.allSatisfy { decoder.decode($0) != nil }, "\(recorded.count) frames")
    }
}
