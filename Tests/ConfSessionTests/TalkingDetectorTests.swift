import ConfCore
import ConfSession
import Testing

@Suite struct TalkingDetectorTests {
    /// Feeds levels 20 ms apart; returns the changes with their frame index.
    func run(_ levels: [UInt8]) -> [(Int, Bool)] {
        var detector = TalkingDetector()
        var changes: [(Int, Bool)] = []
        for (i, level) in levels.enumerated() {
            if let change = detector.update(level: level, now: Instant(nanoseconds: UInt64(i) * 20_000_000)) { changes.append((i, change)) }
        }
        return changes
    }

    @Test func aSteadyToneIsOneLongTalk() {
        let changes = run(Array(repeating: 20, count: 500))
        #expect(changes.count == 1 && changes[0] == (1, true))
    }

    @Test func shortPausesDoNotEndTalkingButHalfASecondDoes() {
        let speech = Array(repeating: UInt8(25), count: 50) + Array(repeating: 127, count: 10) + Array(repeating: 25, count: 50)
            + Array(repeating: 127, count: 40)
        let changes = run(speech)
        #expect(changes.map(\.1) == [true, false])
        #expect(changes[1].0 >= 110 + 24 && changes[1].0 <= 110 + 26)  // 500 ms after the last loud frame
    }

    @Test func aSingleClickIsNotTalking() {
        #expect(run([127, 127, 10, 127, 127, 127]).isEmpty)
    }
}
