import ConfCore
import ConfWire

extension CallEvent {
    /// One link's sending side as congestion control sees it, for `link-stats`.
    public struct LinkStatistics: Equatable, Sendable {
        public var peer: ParticipantID
        /// What we may send the peer (the link's estimate), kbit/s.
        public var estimateKbps: Double
        /// What we sent it since the previous report (RTP with SRTP, no IP/UDP headers), kbit/s.
        public var sentKbps: Double
        /// The RTCP round trip; nil before one was measured (0 in JSON).
        public var roundTrip: Duration?
        /// The loss the peer reports, 0...100.
        public var lossPercent: Double
        /// How long our last packets waited in queues on the path, beyond the emptiest path seen lately.
        public var queueDelay: Duration
        /// The temporal layers the peer is sent: 0 while its video is paused (or we send none).
        public var videoLayers: Int
        /// Which of our encodings the peer is sent (`small` while its link cannot carry the full one's base layer).
        public var videoEncoding: VideoEncoding
        /// How much audio each of our packets to the peer carries, ms: 20, or 60 while the link is weak.
        public var audioPacketMilliseconds: Int
        /// While the link shares one queue with others of ours (`SharedBottleneck`): the one rate
        /// they all send at (the least of their estimates) instead of its own, kbit/s (0 in JSON when not).
        public var sharedKbps: Double?

        public init(peer: ParticipantID, estimateKbps: Double, sentKbps: Double, roundTrip: Duration?, lossPercent: Double,
                    queueDelay: Duration, videoLayers: Int, videoEncoding: VideoEncoding = .full, audioPacketMilliseconds: Int = 20,
                    sharedKbps: Double? = nil) {
            self.peer = peer
            self.estimateKbps = estimateKbps
            self.sentKbps = sentKbps
            self.roundTrip = roundTrip
            self.lossPercent = lossPercent
            self.queueDelay = queueDelay
            self.videoLayers = videoLayers
            self.videoEncoding = videoEncoding
            self.audioPacketMilliseconds = audioPacketMilliseconds
            self.sharedKbps = sharedKbps
        }
    }

    /// Why a peer stopped getting our video (its audio goes on).
    public enum VideoPauseReason: String, Sendable {
        /// Its link's estimate cannot carry even the base layer.
        case bandwidth
    }
}
