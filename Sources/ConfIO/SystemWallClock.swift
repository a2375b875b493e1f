import ConfCore
#if canImport(Glibc)
import Glibc
#endif

/// The system's time of day (CLOCK_REALTIME): only for timestamps, never for durations.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> WallTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return WallTime(nanosecondsSince1970: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }
}

/// The local time of day as "HH:MM" (chat lines on the call screen).
public func localHourAndMinute() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(parts.tm_hour)):\(two(parts.tm_min))"
}
