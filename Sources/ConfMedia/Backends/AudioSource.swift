import ConfCore

/// Where the audio a participant sends comes from (`--audio-source`): 20 ms frames of 48 kHz mono
/// 16-bit samples. One seam whoever keeps time: a device paces itself (the frames it captured since
/// the last call), a generated source is paced by our clock (`PacedAudioSource`) and says when its
/// next frame is due. The caller asks `frames(now:)` then, or on a short tick for a device, and
/// sends what it gets.
///
/// Backends: `pulse[:NAME]` (ConfIO), `tone:HZ`, `silence`, `file:PATH.wav` (`MediaBackends`).
/// Threading: the event loop thread only.
public protocol AudioSource: AnyObject {
    /// Every 20 ms frame ready by `now`, oldest first (960 samples each).
    func frames(now: Instant) -> [[Int16]]
    /// Whether the device went away (found during `frames(now:)`); a lost source gives no more
    /// frames and stays lost. Generated sources are never lost.
    var isLost: Bool { get }
    /// When the next frame is ready, for a source paced by the caller's clock; nil for a device
    /// that keeps its own time (the caller asks on a short tick) or before the first `frames(now:)`.
    var nextFrameDue: Instant? { get }
    func close()
}

extension AudioSource {
    public var isLost: Bool { false }
    public var nextFrameDue: Instant? { nil }
    public func close() {}
}

/// A generator paced by the caller's clock: one frame per 20 ms of `now`, counted from the first
/// call. Late calls catch up (a 50 ms late tick gives the frames it missed); after a stall longer
/// than `maxCatchUp` (the process was stopped) pacing restarts from `now` instead of bursting.
public final class PacedAudioSource: AudioSource {
    public static let maxCatchUp = Duration.milliseconds(200)
    private let generator: any AudioGenerator
    public private(set) var nextFrameDue: Instant?

    public init(_ generator: any AudioGenerator) { self.generator = generator }

    public func frames(now: Instant) -> [[Int16]] {
        var due = nextFrameDue ?? now
        if now.since(due) > Self.maxCatchUp { due = now }
        var frames: [[Int16]] = []
        while now >= due {
            frames.append(generator.nextFrame())
            due = due + AudioFormat.frameDuration
        }
        nextFrameDue = due
        return frames
    }
}
