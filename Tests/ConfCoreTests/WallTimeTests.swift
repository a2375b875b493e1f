import ConfCore
import Testing

@Suite struct WallTimeTests {
    @Test func iso8601InUTCWithMilliseconds() {
        #expect(WallTime(nanosecondsSince1970: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(WallTime(nanosecondsSince1970: 1_700_000_000_999_999_999).iso8601 == "2023-11-14T22:13:20.999Z")
        // A leap day, and the last millisecond of a leap year.
        #expect(WallTime(nanosecondsSince1970: 1_709_164_800_000_000_000).iso8601 == "2024-02-29T00:00:00.000Z")
        #expect(WallTime(nanosecondsSince1970: 1_735_689_599_999_000_000).iso8601 == "2024-12-31T23:59:59.999Z")
        // 2000 is a leap year (divisible by 400).
        #expect(WallTime(nanosecondsSince1970: 951_782_400_000_000_000).iso8601 == "2000-02-29T00:00:00.000Z")
        // Before 1970 the day and the millisecond still round down.
        #expect(WallTime(nanosecondsSince1970: -1).iso8601 == "1969-12-31T23:59:59.999Z")
    }

    /// The day of a date, the inverse of what iso8601 writes: every 37th day from 1700 to 2250 (what nanoseconds since 1970 can hold) reads back.
    @Test func aDatesDayReadsBackAsThatDate() {
        #expect(WallTime.days(fromCivil: 1970, month: 1, day: 1) == 0)
        #expect(WallTime.days(fromCivil: 2024, month: 2, day: 29) == 19_782)
        var day = WallTime.days(fromCivil: 1700, month: 1, day: 1)
        while day < WallTime.days(fromCivil: 2250, month: 1, day: 1) {
            let text = WallTime(nanosecondsSince1970: day * 86_400_000_000_000).iso8601
            let parts = text.prefix(10).split(separator: "-").compactMap { Int64($0) }
            #expect(parts.count == 3 && WallTime.days(fromCivil: parts[0], month: parts[1], day: parts[2]) == day, "\(text)")
            day += 37
        }
    }

    @Test func manualWallClockMovesWhenTold() {
        let clock = ManualWallClock(WallTime(nanosecondsSince1970: 0))
        clock.advance(by: .milliseconds(1500))
        #expect(clock.now().iso8601 == "1970-01-01T00:00:01.500Z")
    }
}
