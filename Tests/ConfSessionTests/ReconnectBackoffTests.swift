import ConfCore
import ConfSession
import Testing

@Suite struct ReconnectBackoffTests {
    @Test func delaysGrowFromHalfASecondToACapOfFifteenWithJitter() {
        var random = SeededRandom(seed: 7)
        var backoff = ReconnectBackoff()
        let delays = (0..<10).map { _ in backoff.next(using: &random) }
        let ceilings: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8)] + Array(repeating: .seconds(15), count: 5)
        for (delay, ceiling) in zip(delays, ceilings) {
            #expect(delay <= ceiling && delay >= ceiling / 2, "\(delay) for \(ceiling)")
        }
        #expect(Set(delays.suffix(5)).count > 1)  // jittered, not all the same
        backoff.reset()
        #expect(backoff.next(using: &random) <= .milliseconds(500))
    }
}
