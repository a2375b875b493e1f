import ConfMedia
import Foundation
import Testing

/// `.y4m` clips: the header, frames read in a loop, and files that are not what they claim.
struct Y4MTests {
    /// A file of `frames` frames of `width` x `height`, frame n's luma all n, chroma 128.
    static func clip(width: Int = 8, height: Int = 6, frames: Int = 3, header extra: String = " F30:1 Ip A1:1 C420jpeg",
                     truncateLast: Int = 0) throws -> String {
        var bytes = Array("YUV4MPEG2 W\(width) H\(height)\(extra)\n".utf8)
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        for n in 0..<frames {
            bytes += Array("FRAME\n".utf8)
            bytes += [UInt8](repeating: UInt8(n), count: width * height) + [UInt8](repeating: 128, count: 2 * chroma)
        }
        bytes.removeLast(truncateLast)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("conf-y4m-\(UUID().uuidString.prefix(8)).y4m").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theHeaderGivesSizeRateAndWhereFramesStart() throws {
        let line = "YUV4MPEG2 W640 H480 F30000:1001 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2\n"
        let header = try Y4MHeader.parse(Array((line + "FRAME\n").utf8))
        #expect(header.width == 640 && header.height == 480)
        #expect(header.rate?.numerator == 30000 && header.rate?.denominator == 1001)
        #expect(header.length == line.utf8.count)
        #expect(header.frameBytes == 640 * 480 * 3 / 2)
        // Only W and H are required; odd sizes round the chroma planes up.
        let bare = try Y4MHeader.parse(Array("YUV4MPEG2 W5 H3\n".utf8))
        #expect(bare.rate == nil && bare.frameBytes == 15 + 2 * 3 * 2)
    }

    @Test(arguments: [
        ("RIFF\u{0}\u{0}\u{0}\u{0}WAVE", "does not start with YUV4MPEG2"),
        ("YUV4MPEG2 W640 H480", "does not end within"),
        ("YUV4MPEG2 H480\n", "gives no size"),
        ("YUV4MPEG2 W0 H480\n", "width '0'"),
        ("YUV4MPEG2 W640 H99999999999999999999\n", "height '99999999999999999999'"),
        ("YUV4MPEG2 W640 H-4\n", "height '-4'"),
        ("YUV4MPEG2 W640 H480 C444\n", "C444 is not 8-bit 4:2:0"),
        ("YUV4MPEG2 W640 H480 C420p10\n", "C420p10"),
        ("YUV4MPEG2 W640 H480 It\n", "interlaced"),
        ("YUV4MPEG2 W640 H480 F30:0\n", "frame rate"),
        ("YUV4MPEG2 W640 H480 F:\n", "frame rate"),
    ])
    func aHeaderThatIsNotUsableIsNamed(text: String, problem: String) {
        #expect { try Y4MHeader.parse(Array(text.utf8)) } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test func aLongHeaderLineIsRefusedNotSearchedForever() {
        let text = "YUV4MPEG2 W640 H480 X" + String(repeating: "a", count: 5000) + "\n"
        #expect(throws: Y4MHeader.Problem.self) { try Y4MHeader.parse(Array(text.utf8)) }
    }

    @Test func framesComeInOrderAndLoop() throws {
        let path = try Self.clip(frames: 3)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        let lumas = (0..<7).compactMap { _ in reader.nextFrame()?.y.first }
        #expect(lumas == [0, 1, 2, 0, 1, 2, 0])
        #expect(reader.damagedPasses == 0)
    }

    @Test func aFrameCutShortEndsThePassAndIsCounted() throws {
        let path = try Self.clip(frames: 3, truncateLast: 10)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        let lumas = (0..<5).compactMap { _ in reader.nextFrame()?.y.first }
        #expect(lumas == [0, 1, 0, 1, 0])
        #expect(reader.damagedPasses == 2)
    }

    @Test func aFileWithoutACompleteFrameGivesNoneAndDoesNotSpin() throws {
        let path = try Self.clip(frames: 1, truncateLast: 1)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        #expect(reader.nextFrame() == nil)
        #expect(reader.nextFrame() == nil)
    }

    /// The `file:` backend's source for the clip at `path`, in a room of `width` x `height`.
    static func open(_ path: String, inRoomOf width: Int, _ height: Int) throws -> any VideoSource {
        let sources = MediaBackends.generatedVideoSources() as BackendRegistry<(any VideoSource)?, Void>
        let open = try sources.prepare("file:\(path)")
        return try #require(try open(BackendContext(devices: (), video: VideoFormat(width: width, height: height, framesPerSecond: 15))))
    }

    @Test func theBackendChecksTheFileWhenPreparedAndScalesToTheRoom() throws {
        let sources = MediaBackends.generatedVideoSources() as BackendRegistry<(any VideoSource)?, Void>
        #expect(throws: MediaBackendError.self) { try sources.prepare("file:/nonexistent.y4m") }
        let empty = try Self.clip(frames: 1, truncateLast: 1)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect { try sources.prepare("file:\(empty)") } throws: { "\($0)".contains("no complete frame") }

        let path = try Self.clip(width: 8, height: 6, frames: 2)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = try Self.open(path, inRoomOf: 16, 12)
        let first = try #require(source.newestPicture())
        #expect(first.width == 8 && first.height == 6, "a clip smaller than the room is not scaled up")
        #expect(first.y.allSatisfy { $0 == 0 } && first.u.allSatisfy { $0 == 128 })
        #expect(source.newestPicture()?.y.first == 1)
        #expect(source.framesPerSecond == 30, "the call runs at the clip's F30:1")
    }

    /// A clip keeps its shape: a portrait one in a landscape room is scaled down to fit, not cropped.
    @Test func aClipIsSentInItsOwnShapeWithinTheRoom() throws {
        let path = try Self.clip(width: 24, height: 32, frames: 1)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = try Self.open(path, inRoomOf: 16, 12)
        let picture = try #require(source.newestPicture())
        #expect(picture.width == 8 && picture.height == 12, "\(picture.width)x\(picture.height)")
        #expect(source.pictureSize.map { [$0.width, $0.height] } == [8, 12])
    }

    @Test(arguments: [(" F30000:1001", 30), (" F25:1", 25), (" F1000:1", 60), (" F1:10", 1), ("", nil)] as [(String, Int?)])
    func theClipsFrameRateIsTheCallsWithinOneToSixty(header: String, expected: Int?) throws {
        let path = try Self.clip(frames: 1, header: header)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try Y4MVideoSource(path: path, width: 8, height: 6).framesPerSecond == expected)
    }
}
