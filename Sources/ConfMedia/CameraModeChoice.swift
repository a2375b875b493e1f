/// Which of a camera's modes to capture in, for a room's picture size: the one that covers the
/// size (at least as wide and as tall, so that it is only ever scaled down) at the frame rate
/// wanted, of the room's shape (a 16:9 picture squeezed into 4:3 distorts faces), raw before
/// MJPEG (no JPEG to decode), the smallest such (the least to convert). A
/// typical webcam gives 720p at 30 fps only as MJPEG and raw YUYV at 10 fps: for a 720p room at
/// 30 fps that is the MJPEG mode; for 480p, the raw 640x480 one. Pure.
public enum CameraModeChoice {
    /// A mode as the device lists it: `fps` 0 when it does not say.
    public struct Mode: Equatable, Sendable {
        public var format: String
        public var width: Int
        public var height: Int
        public var fps: Int

        public init(format: String, width: Int, height: Int, fps: Int) {
            self.format = format
            self.width = width
            self.height = height
            self.fps = fps
        }

        var isRaw: Bool { format != "MJPEG" }
        var pixels: Int { width * height }
        func covers(_ width: Int, _ height: Int) -> Bool { self.width >= width && self.height >= height }
        /// Within 2 % of the same width to height.
        func isShaped(_ width: Int, _ height: Int) -> Bool { abs(self.width * height - width * self.height) * 50 <= width * self.height }
    }

    /// The best mode for a `width`x`height` picture at `fps`; nil for none at all. When none covers
    /// the size, the largest at the rate (or, failing that, at any rate).
    public static func best(of modes: [Mode], width: Int, height: Int, fps: Int) -> Mode? {
        // A rate the driver does not state is taken as good enough: asking for it is all we can do.
        func fast(_ mode: Mode) -> Bool { mode.fps == 0 || mode.fps >= fps }
        let covering = modes.filter { $0.covers(width, height) }
        for pool in [covering.filter(fast), covering] where !pool.isEmpty {
            return pool.min { a, b in
                if fast(a) != fast(b) { return fast(a) }
                let shaped = (a.isShaped(width, height), b.isShaped(width, height))
                if shaped.0 != shaped.1 { return shaped.0 }
                if a.isRaw != b.isRaw { return a.isRaw }
                if a.pixels != b.pixels { return a.pixels < b.pixels }
                return a.fps > b.fps
            }
        }
        // Nothing covers the size: the largest picture, at the rate if any mode has it.
        let pool = modes.contains(where: fast) ? modes.filter(fast) : modes
        return pool.max { a, b in
            if a.pixels != b.pixels { return a.pixels < b.pixels }
            if a.isRaw != b.isRaw { return !a.isRaw }
            return a.fps < b.fps
        }
    }
}
