import Synchronization

/// Where the time of day comes from, for timestamps people and logs read (`at` in events). Never
/// for measuring durations: that is `MonotonicClock`'s job. The real one lives in ConfIO.
public protocol WallClock: Sendable {
    func now() -> WallTime
}

/// A moment in UTC, as nanoseconds since 1970-01-01T00:00:00Z (the Unix epoch, leap seconds ignored).
public struct WallTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanosecondsSince1970: Int64

    public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }

    public static func < (a: WallTime, b: WallTime) -> Bool { a.nanosecondsSince1970 < b.nanosecondsSince1970 }

    /// ISO 8601 / RFC 3339 in UTC with milliseconds: "2026-12-01T11:18:25.123Z".
    public var iso8601: String {
        let millis = nanosecondsSince1970.floorDivided(by: 1_000_000)
        let days = millis.floorDivided(by: 86_400_000)
        let ofDay = millis - days * 86_400_000
        let (year, month, day) = Self.civil(fromDays: days)
        func pad(_ n: Int64, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(ofDay / 3_600_000, 2)):\(pad(ofDay / 60_000 % 60, 2))"
            + ":\(pad(ofDay / 1000 % 60, 2)).\(pad(ofDay % 1000, 3))Z"
    }

    public var description: String { iso8601 }

    /// The day counted from 1970-01-01 of a proleptic Gregorian date: `civil(fromDays:)`'s
    /// inverse (`days_from_civil` of the same page).
    public static func days(fromCivil year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`, http://howardhinnant.github.io/date_algorithms.html).
    static func civil(fromDays z: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A wall clock that says what it is told (tests). Safe to read from any thread.
public final class ManualWallClock: WallClock, Sendable {
    private let current: Mutex<WallTime>

    public init(_ start: WallTime) { current = Mutex(start) }

    public func now() -> WallTime { current.withLock { $0 } }

    public func advance(by duration: Duration) {
        current.withLock { $0.nanosecondsSince1970 += duration.nanosecondsClamped }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (times before 1970 still land on the right day).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}
