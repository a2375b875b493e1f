#if canImport(Glibc)
import Glibc
#endif

/// Measurements of 16-bit audio: levels for the audio-level header extension and talking
/// detection, and tone power for tests and diagnostics.
public enum SignalAnalysis {
    /// RMS level relative to full scale, in -dBov clamped to 0...127 (RFC 6464 section 3).
    public static func level(_ samples: [Int16]) -> UInt8 {
        guard !samples.isEmpty else { return 127 }
        // In integers, which the compiler vectorizes (a sum of Doubles must be added in order):
        // each square is under 2^30, so Int64 holds the sum of 2^33 of them.
        var sum: Int64 = 0
        for sample in samples { sum &+= Int64(Int32(sample) * Int32(sample)) }
        let rms = (Double(sum) / Double(samples.count)).squareRoot() / 32768.0
        guard rms > 0 else { return 127 }
        return UInt8(max(0, min(127, (-20 * log10(rms)).rounded())))
    }

    /// The power of `frequency` in `samples` (Goertzel), normalised so that a full-scale sine at
    /// that frequency gives about 1 and silence 0.
    public static func tonePower(_ samples: [Int16], frequency: Double, sampleRate: Double = 48_000) -> Double {
        guard !samples.isEmpty else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var s1 = 0.0, s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) / 32768.0 + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        let n = Double(samples.count)
        return 4 * power / (n * n)
    }
}
