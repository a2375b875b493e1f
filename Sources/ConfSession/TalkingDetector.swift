import ConfCore

/// Whether someone is talking, from the level of each 20 ms frame (-dBov, 0 loudest, 127 silent),
/// with hysteresis: talking starts after `startFrames` loud frames in a row and ends after `hold`
/// without one, so a steady tone does not flap and a breath between words does not end it.
public struct TalkingDetector: Sendable {
    /// Louder than this (fewer dB below full scale) counts as voice.
    public var threshold: UInt8 = 50
    public var startFrames = 2
    public var hold: Duration = .milliseconds(500)
    public private(set) var isTalking = false
    private var loudRun = 0
    private var lastLoud: Instant?

    public init() {}

    /// Takes one frame's level; returns the new state when it changed.
    public mutating func update(level: UInt8, now: Instant) -> Bool? {
        if level <= threshold {
            loudRun += 1
            lastLoud = now
            if !isTalking && loudRun >= startFrames {
                isTalking = true
                return true
            }
        } else {
            loudRun = 0
            if isTalking, let lastLoud, now.since(lastLoud) >= hold {
                isTalking = false
                return false
            }
        }
        return nil
    }
}
