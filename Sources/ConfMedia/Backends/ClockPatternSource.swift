import ConfCore

/// `--video-source pattern:clock`: a picture that carries the moment it was made, for measuring
/// glass-to-glass delay (bench/glass_to_glass.py reads it back from the receiver's window). The
/// monotonic clock's milliseconds, modulo 2^24 (4.6 hours), are drawn as 24 cells, 12 across and
/// 2 down, most significant bit first: white (luma 235) for 1, black (16) for 0. Cells this
/// large survive VP8 at any bitrate and any scaling a window does. It runs at 30 pictures a second,
/// as a camera does.
public final class ClockPatternSource: VideoSource {
    public static let columns = 12, rows = 2
    private let width: Int, height: Int
    private let clock: any MonotonicClock

    public init(width: Int, height: Int, clock: any MonotonicClock) {
        (self.width, self.height, self.clock) = (width, height, clock)
    }

    public func newestPicture() -> VideoFrame? {
        let stamp = Int(clock.now().nanoseconds / 1_000_000) & 0xFF_FFFF
        var frame = VideoFrame.blank(width: width, height: height)
        for row in 0..<height {
            let cellRow = min(Self.rows - 1, row * Self.rows / height)
            for column in 0..<width {
                let cell = cellRow * Self.columns + min(Self.columns - 1, column * Self.columns / width)
                frame.y[row * width + column] = stamp >> (Self.columns * Self.rows - 1 - cell) & 1 == 1 ? 235 : 16
            }
        }
        return frame
    }

    /// A camera's rate, so that the delay measured is a camera call's.
    public var framesPerSecond: Int? { 30 }
    public var isLost: Bool { false }
    public func close() {}
}
