import ConfCall
import ConfCore
import ConfMedia
import ConfWire

/// Plays `CallSound`s on the speaker, as a participant of its own ("conf sounds": its own stream,
/// so that a mixer can turn it down): 20 ms a frame in real time, one sound after another. Only
/// the speaker gets them, never the encoder or the recordings.
/// Threading: the event loop thread only.
public final class LocalSounds {
    /// The speaker's stream for the sounds; no participant's id looks like this (theirs are p1, p2...).
    public static let participant = Participant(id: ParticipantID("sounds"), name: "conf sounds", role: .listener)
    private let speaker: any AudioSink
    private var pending: [Int16] = []
    private var nextFrameAt: Instant?

    public init(speaker: any AudioSink) { self.speaker = speaker }

    /// The sound an event calls for, if any: a peer joined or left, a peer's chat message, we talk while muted.
    public func react(to event: CallEvent, now: Instant) {
        switch event {
        case .peerJoined: play(.joined, now: now)
        case .peerLeft: play(.left, now: now)
        case .chat: play(.chat, now: now)
        case .talkingWhileMuted: play(.mutedTalking, now: now)
        default: break
        }
    }

    public func play(_ sound: CallSound, now: Instant) {
        // A burst of events (four people arriving at once) plays one sound, not a queue of them.
        guard pending.count < 48 * 100 else { return }
        pending += sound.samples
        if nextFrameAt == nil { nextFrameAt = now }
    }

    /// Hands the speaker the frames due by `now`.
    public func tick(now: Instant) {
        while let due = nextFrameAt, due <= now, !pending.isEmpty {
            var frame = Array(pending.prefix(960))
            pending.removeFirst(frame.count)
            frame += [Int16](repeating: 0, count: 960 - frame.count)
            _ = speaker.play(frame, from: Self.participant, at: due)
            nextFrameAt = pending.isEmpty ? nil : due + .milliseconds(20)
        }
    }

    /// When `tick` should run next; nil while nothing plays.
    public var nextFrameDue: Instant? { nextFrameAt }
}
