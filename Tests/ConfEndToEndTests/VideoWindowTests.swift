import Foundation
import Testing

/// The video window on a virtual display: three participants send clips of one colour each and
/// of different shapes; a screenshot of the host's window shows each colour in its own tile, at
/// its shape, widest first, and the host's own picture in the corner; keys typed into the window
/// act on the call.
@Suite(.enabled(if: X11Display.available, "needs Xvfb, xwd and xdotool (scripts/install-deps --test)"))
struct VideoWindowTests {
    /// A one-frame YUV4MPEG2 clip of one colour.
    static func clip(_ path: String, width: Int, height: Int, yuv: (UInt8, UInt8, UInt8)) throws {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        var bytes = Array("YUV4MPEG2 W\(width) H\(height) F15:1 Ip C420jpeg\nFRAME\n".utf8)
        bytes += [UInt8](repeating: yuv.0, count: width * height) + [UInt8](repeating: yuv.1, count: chroma) + [UInt8](repeating: yuv.2, count: chroma)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    enum Colour: CaseIterable { case red, green, blue, tileGrey }

    /// Where a colour covers the screenshot: its bounding box and how many pixels.
    struct Region: CustomStringConvertible {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1, count = 0
        var width: Int { maxX - minX + 1 }
        var height: Int { maxY - minY + 1 }
        var aspect: Double { Double(width) / Double(max(1, height)) }
        var description: String { count == 0 ? "none" : "\(width)x\(height) at (\(minX), \(minY)), \(count) px" }
    }

    static func regions(_ shot: X11Display.Screenshot) -> [Colour: Region] {
        var found: [Colour: Region] = [:]
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                let p = shot.pixel(x, y)
                let colour: Colour
                if p.r > 200 && p.g < 70 && p.b < 70 { colour = .red }
                else if p.g > 200 && p.r < 70 && p.b < 70 { colour = .green }
                else if p.b > 200 && p.r < 70 && p.g < 70 { colour = .blue }
                else if (44...52).contains(p.r) && (44...52).contains(p.g) && (50...58).contains(p.b) { colour = .tileGrey }
                else { continue }
                var region = found[colour] ?? Region()
                (region.minX, region.minY) = (min(region.minX, x), min(region.minY, y))
                (region.maxX, region.maxY) = (max(region.maxX, x), max(region.maxY, y))
                region.count += 1
                found[colour] = region
            }
        }
        return found
    }

    @Test func eachParticipantHasATileAtItsShapeWidestFirstAndTheKeysAct() throws {
        let display = try X11Display(width: 800, height: 600)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-window-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // BT.601 studio-range red, green and blue; 4:3, 16:9 and 3:4.
        try Self.clip(dir + "/red.y4m", width: 320, height: 240, yuv: (81, 90, 240))
        try Self.clip(dir + "/green.y4m", width: 320, height: 180, yuv: (145, 54, 34))
        try Self.clip(dir + "/blue.y4m", width: 180, height: 240, yuv: (41, 240, 110))

        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--resolution", "240p", "--name", "window test",
                                    "--video-source", "file:\(dir)/red.y4m", "--video-view", "window"],
                                   environment: ["DISPLAY": display.name])
        let join = try #require(host.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        // cat joins first (p2), bob second (p3): the widest-first rule, not the order of ids, puts bob first.
        let cat = try ConfProcess(join + ["--as", "cat", "--json", "--video-source", "file:\(dir)/blue.y4m", "--video-view", "none"])
        #expect(cat.waitForEvent("joined") != nil)
        let bob = try ConfProcess(join + ["--as", "bob", "--json", "--video-source", "file:\(dir)/green.y4m", "--video-view", "none"],
                                  interactive: true)
        var shot: [Colour: Region] = [:]
        let drawn = ConfProcess.waitUntil(timeout: .seconds(30)) {
            shot = (try? display.screenshot()).map(Self.regions) ?? [:]
            return [Colour.red, .green, .blue].allSatisfy { shot[$0, default: Region()].count > 2_000 }
        }
        #expect(drawn, "the three pictures on screen: \(shot); host: \(host.stderr)")
        let (red, green, blue) = (shot[.red, default: Region()], shot[.green, default: Region()], shot[.blue, default: Region()])
        #expect(abs(green.aspect - 16.0 / 9) < 0.06 && abs(blue.aspect - 3.0 / 4) < 0.04, "shapes kept: green \(green), blue \(blue)")
        #expect(green.maxX < blue.minX && abs(green.minY - blue.minY) <= 2, "one row, the 16:9 picture first: green \(green), blue \(blue)")
        #expect(red.count < blue.count && red.minX > blue.minX && red.minY > max(green.maxY, blue.maxY),
                "our own picture small, in the bottom-right corner, below the others: red \(red)")

        // bob's camera off: his tile loses its picture for the badge's grey.
        bob.send("camera off")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) {
            shot = (try? display.screenshot()).map(Self.regions) ?? [:]
            return shot[.green] == nil && shot[.tileGrey, default: Region()].count > 10_000
        }, "bob's tile grey, not his last picture: \(shot)")

        // m in the window mutes the host: the others are told; q leaves.
        try display.type("m", intoWindowNamed: "window test")
        #expect(cat.waitForEvent("peer-muted", timeout: .seconds(10)) { $0["audio"] as? Bool == true } != nil, "host: \(host.stderr)")
        try display.type("q", intoWindowNamed: "window test")
        #expect(host.waitForExit(timeout: .seconds(10)) == 0)
        bob.signal(SIGTERM)
        cat.signal(SIGTERM)
        _ = bob.waitForExit()
        _ = cat.waitForExit()
    }
}
