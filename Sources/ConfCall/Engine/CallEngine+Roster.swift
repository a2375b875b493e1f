import ConfCore
import ConfWire

/// What a roster shows of each participant (the call screen): who is here, how their link is,
/// how loud they are. Read-only views of the links.
extension CallEngine {
    public struct LinkView: Equatable, Sendable {
        public var connected: Bool
        /// "host", "srflx", "relay"..., once a pair is selected.
        public var path: String?
        public var roundTrip: Duration?
        /// Of what we send, as the peer reports it (transport feedback or receiver reports).
        public var lossPercent: Double?
        /// Of the audio we receive (RFC 3550 §6.4.1 interarrival jitter).
        public var jitter: Duration?
        public var mutedHere: Bool
        /// The last level played from this peer (dB below full scale).
        public var level: UInt8?
    }

    /// Everyone in the room but us, in id order (the order they joined in).
    public var participants: [Participant] { roster.values.sorted { $0.id < $1.id } }

    /// Our link to `id` as a roster shows it; nil for nobody by that id or no link (a listener's
    /// fellow listener).
    public func linkView(_ id: ParticipantID) -> LinkView? {
        guard let link = peerSlots[id]?.link else { return nil }
        let connected = link.phase == .connected
        let statistics = connected ? link.congestion.statistics : nil
        let jitter = link.audioIn?.reception.map { Duration.nanoseconds(Int64($0.jitterMilliseconds * 1e6)) }
        return LinkView(connected: connected, path: link.selectedPair?.path, roundTrip: statistics?.roundTrip ?? link.meter.latest,
                        lossPercent: statistics?.lossFraction.map { $0 * 100 }, jitter: jitter, mutedHere: link.locallyMuted,
                        level: link.level)
    }
}
