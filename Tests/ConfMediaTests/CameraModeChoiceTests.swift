import ConfMedia
import Testing

/// Choosing a camera's mode for a room: covered size, frame rate, raw before MJPEG, smallest.
@Suite struct CameraModeChoiceTests {
    typealias Mode = CameraModeChoice.Mode

    /// What a common USB webcam lists: raw YUYV fast only at small sizes, MJPEG fast at all.
    static let webcam: [Mode] = [
        Mode(format: "YUYV", width: 640, height: 480, fps: 30), Mode(format: "YUYV", width: 1280, height: 720, fps: 10),
        Mode(format: "YUYV", width: 1920, height: 1080, fps: 5), Mode(format: "MJPEG", width: 640, height: 480, fps: 30),
        Mode(format: "MJPEG", width: 1280, height: 720, fps: 30), Mode(format: "MJPEG", width: 1920, height: 1080, fps: 30),
    ]

    @Test(arguments: [
        (320, 240, 30, Mode(format: "YUYV", width: 640, height: 480, fps: 30)),
        (640, 480, 30, Mode(format: "YUYV", width: 640, height: 480, fps: 30)),
        (1280, 720, 30, Mode(format: "MJPEG", width: 1280, height: 720, fps: 30)),
        (1280, 720, 10, Mode(format: "YUYV", width: 1280, height: 720, fps: 10)),
        (1920, 1080, 30, Mode(format: "MJPEG", width: 1920, height: 1080, fps: 30)),
    ])
    func aWebcamGivesRawWhereItIsFastEnoughAndMJPEGWhereNot(width: Int, height: Int, fps: Int, expected: Mode) {
        #expect(CameraModeChoice.best(of: Self.webcam, width: width, height: height, fps: fps) == expected)
    }

    @Test func aModeOfTheRoomsShapeComesBeforeASmallerOneOfAnother() {
        let modes = [Mode(format: "YUYV", width: 640, height: 360, fps: 30), Mode(format: "YUYV", width: 640, height: 480, fps: 30),
                     Mode(format: "MJPEG", width: 320, height: 240, fps: 30)]
        #expect(CameraModeChoice.best(of: modes, width: 320, height: 240, fps: 30) == modes[1], "4:3 raw over 16:9 raw and over MJPEG")
        #expect(CameraModeChoice.best(of: modes, width: 640, height: 360, fps: 30) == modes[0])
    }

    @Test func aSlowCoveringModeIsTakenWhenNoneIsFast() {
        let modes = [Mode(format: "YUYV", width: 1280, height: 720, fps: 10), Mode(format: "NV12", width: 640, height: 360, fps: 30)]
        #expect(CameraModeChoice.best(of: modes, width: 1280, height: 720, fps: 30) == modes[0], "size first: a smaller picture would be scaled up")
    }

    @Test func withNoCoveringModeTheLargestFastOneIsTaken() {
        let modes = [Mode(format: "YUYV", width: 640, height: 480, fps: 25), Mode(format: "YUYV", width: 320, height: 240, fps: 25),
                     Mode(format: "YUYV", width: 800, height: 600, fps: 5)]
        #expect(CameraModeChoice.best(of: modes, width: 1280, height: 720, fps: 25) == modes[0])
        #expect(CameraModeChoice.best(of: modes, width: 1280, height: 720, fps: 60) == modes[2], "none fast enough: the largest")
    }

    @Test func anUnstatedRateCountsAsFastEnoughAndNoModesIsNone() {
        let modes = [Mode(format: "MJPEG", width: 1280, height: 720, fps: 30), Mode(format: "YU12", width: 1280, height: 720, fps: 0)]
        #expect(CameraModeChoice.best(of: modes, width: 1280, height: 720, fps: 30) == modes[1])
        #expect(CameraModeChoice.best(of: [], width: 640, height: 480, fps: 30) == nil)
    }
}
