@testable import ConfApp
import ConfCall
import ConfCore
import ConfDriver
import ConfWire
import Testing

@Suite struct EventReporterTests {
    @Test func everyJSONLineCarriesSecondsSinceStartAndTheTimeOfDay() throws {
        let clock = ManualClock(Instant(nanoseconds: 5_000_000_000))
        let wall = ManualWallClock(WallTime(nanosecondsSince1970: 1_764_588_305_000_000_000))
        let reporter = EventReporter(json: true, environment: [:], clock: clock, wallClock: wall)
        clock.advance(by: .milliseconds(2500) + .microseconds(400))
        wall.advance(by: .milliseconds(2500) + .microseconds(400))
        let line = reporter.jsonLine(.muted(audio: true, video: false))
        #expect(line == #"{"type":"muted","t":2.5,"at":"2025-12-01T11:25:07.500Z","audio":true,"video":false}"#)
        clock.advance(by: .microseconds(1_234_567))
        let next = try JSONValue.parse(reporter.jsonLine(.left(.duration)))
        #expect(next["t"] == .number(3.735))
    }
}
