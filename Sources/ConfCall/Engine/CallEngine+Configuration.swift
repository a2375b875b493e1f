import ConfCore

extension CallEngine {
    /// What the driver tells the engine about the call (the engine turns `smallVideo` off itself
    /// when that encoder will not start).
    public struct Configuration: Sendable {
        public var connectTimeout: Duration = .seconds(15)
        /// Chat messages for each peer as soon as its chat channel opens (`--say`).
        public var say: [String] = []
        /// A scripted `conf join` that finds others and connects to none of them fails
        /// (`callFailed`); a host, or anyone alone at first, never does.
        public var failsWhenNobodyConnects = true
        /// How often `audio-stats` is reported; nil for never.
        public var statsInterval: Duration?
        /// Whether we send audio / video at all (a listener sends neither).
        public var sendsAudio = true
        public var sendsVideo = false
        public var receivesAudio = true
        public var receivesVideo = true
        /// Transport-wide congestion control offered and used (off: negotiates as an older peer,
        /// whose links get a loss-based estimate from receiver reports).
        public var congestionControl = true
        /// The most the video encoder is asked for (`--video-bitrate`), kbit/s.
        public var videoBitrateKbps = 600
        /// The most Opus is asked for (`--audio-bitrate`), kbit/s: within 16...64.
        public var audioBitrateKbps = 32
        /// The driver can make the small encoding (`VideoEncoding`) on `.smallVideoBitrate`: a link
        /// that cannot carry the full encoding's base layer gets it instead of no video.
        public var smallVideo = false
        /// What the full encoding's picture needs, kbit/s (`VideoEncoding.fullFloorKbps`): a link
        /// whose budget is under it gets the small encoding; nil for no such floor.
        public var fullVideoFloorKbps: Int?

        public init() {}
    }
}
