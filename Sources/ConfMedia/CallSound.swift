#if canImport(Glibc)
import Glibc
#endif

/// The short sounds a call plays to you alone (never into what you send): someone joined, someone
/// left, a chat message, you talk while muted. A note of 0 Hz is a rest. Generated, no asset files: tones at 48 kHz mono with a raised-cosine
/// fade in and out (no clicks), quiet (a fifth of full scale) so that they never startle.
public enum CallSound: Sendable, CaseIterable {
    case joined, left, chat
    /// You talk while muted.
    case mutedTalking

    /// Its notes: (frequency in Hz, milliseconds).
    var notes: [(hz: Double, ms: Int)] {
        switch self {
        case .joined: [(660, 90), (880, 120)]  // up: a fifth
        case .left: [(880, 90), (587, 140)]  // down
        case .chat: [(1320, 60)]  // one short, high note
        case .mutedTalking: [(440, 80), (0, 60), (440, 80)]  // two low beeps
        }
    }

    public var samples: [Int16] {
        notes.flatMap { note -> [Int16] in
            let count = 48 * note.ms, fade = min(count / 2, 48 * 8)
            return (0..<count).map { i in
                let envelope = i < fade ? 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(fade))
                    : i >= count - fade ? 0.5 - 0.5 * cos(Double.pi * Double(count - i) / Double(fade)) : 1
                return Int16(6_500 * envelope * sin(2 * Double.pi * note.hz * Double(i) / 48_000))
            }
        }
    }
}
