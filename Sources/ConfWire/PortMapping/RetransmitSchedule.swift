import ConfCore

/// When an unanswered request goes out again and when it is given up: the first interval doubles
/// after each send, up to `maximumInterval`, until `giveUpAt`.
///
/// RFC 6887 section 8.1.1 starts PCP at 3 s (with jitter) and RFC 6886 section 3.1 NAT-PMP at
/// 250 ms, each going on for a minute or more. `conf host` wants its verdict on the router within
/// a few seconds, and a router on the LAN answers in milliseconds, so the session starts both at
/// 250 ms and gives each protocol 2 s: sends at 0, 0.25, 0.75 and 1.75 s. No jitter: one client
/// per router, its requests are not synchronised with a crowd's.
public struct RetransmitSchedule: Sendable {
    public private(set) var nextSendAt: Instant
    public let giveUpAt: Instant
    private var interval: Duration
    private let maximumInterval: Duration

    public init(start: Instant, initialInterval: Duration, maximumInterval: Duration = .seconds(60), giveUpAt: Instant) {
        nextSendAt = start
        self.giveUpAt = giveUpAt
        interval = initialInterval
        self.maximumInterval = maximumInterval
    }

    /// The next time something is due: a send, or giving up.
    public var deadline: Instant { min(nextSendAt, giveUpAt) }

    public func isOver(at now: Instant) -> Bool { now >= giveUpAt }

    /// Whether the request should go out now; if so the next send is scheduled.
    public mutating func sendIfDue(now: Instant) -> Bool {
        guard now >= nextSendAt, now < giveUpAt else { return false }
        nextSendAt = now + interval
        interval = min(interval * 2, maximumInterval)
        return true
    }
}
