import ConfMedia
import Testing

@Suite struct CallSoundTests {
    /// Each sound is short, quiet, starts and ends at silence (no click), and is made of its notes:
    /// joining rises, leaving falls.
    @Test(arguments: CallSound.allCases)
    func aSoundIsShortQuietAndClickFree(_ sound: CallSound) {
        let samples = sound.samples
        #expect((48 * 50...48 * 300).contains(samples.count), "\(samples.count) samples")
        #expect(samples.map { abs(Int($0)) }.max()! <= 6_500)
        #expect(abs(Int(samples.first!)) < 100 && abs(Int(samples.last!)) < 100)
        #expect(SignalAnalysis.level(samples) < 30, "audible: \(SignalAnalysis.level(samples)) dB under full scale")
    }

    @Test func joiningRisesAndLeavingFalls() {
        func dominant(_ samples: ArraySlice<Int16>, among frequencies: [Double]) -> Double {
            frequencies.max { SignalAnalysis.tonePower(Array(samples), frequency: $0) < SignalAnalysis.tonePower(Array(samples), frequency: $1) }!
        }
        let candidates: [Double] = [587, 660, 880, 1320]
        let joined = CallSound.joined.samples, left = CallSound.left.samples
        #expect(dominant(joined.prefix(48 * 80), among: candidates) == 660 && dominant(joined.suffix(48 * 100), among: candidates) == 880)
        #expect(dominant(left.prefix(48 * 80), among: candidates) == 880 && dominant(left.suffix(48 * 100), among: candidates) == 587)
        #expect(dominant(CallSound.chat.samples[...], among: candidates) == 1320)
    }
}
