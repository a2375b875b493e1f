#if canImport(Glibc)
import Glibc
#endif

/// Audio made on demand, one 20 ms frame (960 samples, 48 kHz mono) per call: what a generated
/// `AudioSource` plays (through `PacedAudioSource`) and what `--play` mixes in.
public protocol AudioGenerator: AnyObject {
    /// The next frame. Generators that run dry return silence.
    func nextFrame() -> [Int16]
}

/// A sine tone at a fixed frequency, at -12 dBFS.
public final class ToneGenerator: AudioGenerator {
    public let frequency: Double
    private var phase = 0.0

    public init(frequency: Double) { self.frequency = frequency }

    public func nextFrame() -> [Int16] {
        let step = 2 * Double.pi * frequency / Double(AudioFormat.sampleRate)
        var frame = [Int16](repeating: 0, count: AudioFormat.frameSamples)
        for i in frame.indices {
            frame[i] = Int16(8192 * sin(phase))
            phase += step
            if phase > 2 * Double.pi { phase -= 2 * Double.pi }
        }
        return frame
    }
}

public final class SilenceGenerator: AudioGenerator {
    public init() {}
    public func nextFrame() -> [Int16] { [Int16](repeating: 0, count: AudioFormat.frameSamples) }
}

/// Samples decoded ahead of time (a WAV file), played once, then silence.
public final class SamplesGenerator: AudioGenerator {
    private let samples: [Int16]
    private var position = 0

    public init(samples: [Int16]) { self.samples = samples }

    public var isFinished: Bool { position >= samples.count }

    public func nextFrame() -> [Int16] {
        var frame = [Int16](repeating: 0, count: AudioFormat.frameSamples)
        let count = min(frame.count, samples.count - position)
        if count > 0 {
            frame.replaceSubrange(0..<count, with: samples[position..<(position + count)])
            position += count
        }
        return frame
    }
}
