import ConfCore

/// When the rendezvous orders a certificate from its ACME directory, and when it must not. Pure;
/// times are seconds since 1970 (certificates and the CA's `Retry-After` speak wall-clock time).
///
/// As Caddy does: a kept certificate is served while it names this identifier, comes from this
/// directory and has a day left (a quarter of its life, if that is less); it is renewed at half its life (80 hours into Let's Encrypt's
/// 160-hour `shortlived` ones) while it is served. No order is made while a kept certificate is
/// good, so restarts never spend the CA's rate limits (5 duplicate certificates a week); after a
/// failure the next try waits (1 minute, doubling to a day, and at least what the CA asked), and
/// that wait is kept in the state directory so that a restart does not skip it.
public enum ACMECertificatePolicy {
    /// What is kept about the certificate in the state directory, beside the certificate itself.
    public struct Kept: Equatable, Sendable {
        public var identifier: String
        public var directory: String
        public var notBefore: Int64
        public var notAfter: Int64

        public init(identifier: String, directory: String, notBefore: Int64, notAfter: Int64) {
            self.identifier = identifier
            self.directory = directory
            self.notBefore = notBefore
            self.notAfter = notAfter
        }
    }

    /// The failures since the last certificate, and when the next order may be made.
    public struct BackOff: Equatable, Sendable {
        public var failures: Int
        public var nextAttempt: Int64
        public var reason: String

        public init(failures: Int, nextAttempt: Int64, reason: String) {
            self.failures = failures
            self.nextAttempt = nextAttempt
            self.reason = reason
        }
    }

    public static let minimumLeft: Int64 = 86_400
    public static let firstWait: Int64 = 60
    public static let longestWait: Int64 = 86_400

    public enum Decision: Equatable, Sendable {
        /// Serve the kept certificate; order its successor at `renewAt`.
        case serve(renewAt: Int64)
        /// Order one now, serving the kept certificate meanwhile if `servesKept` (its renewal), the
        /// self-signed one if not.
        case order(servesKept: Bool)
        /// Do not order before `until` (the back-off); serve the kept certificate if `servesKept`.
        case wait(until: Int64, servesKept: Bool)
    }

    /// Served while a day of it is left, or a quarter of its life for one shorter than four days.
    public static func usable(_ kept: Kept?, identifier: String, directory: String, now: Int64) -> Bool {
        guard let kept else { return false }
        return kept.identifier == identifier && kept.directory == directory && now <= lastUsable(kept) && kept.notBefore <= now + 300
    }

    /// The last moment `kept` is served.
    public static func lastUsable(_ kept: Kept) -> Int64 {
        kept.notAfter - min(minimumLeft, (kept.notAfter - kept.notBefore) / 4)
    }

    /// Half way through its life.
    public static func renewalTime(_ kept: Kept) -> Int64 {
        kept.notBefore + (kept.notAfter - kept.notBefore) / 2
    }

    public static func decide(kept: Kept?, backOff: BackOff?, identifier: String, directory: String, now: Int64) -> Decision {
        let servesKept = usable(kept, identifier: identifier, directory: directory, now: now)
        if servesKept, let kept, now < renewalTime(kept) { return .serve(renewAt: renewalTime(kept)) }
        if let backOff, now < backOff.nextAttempt { return .wait(until: backOff.nextAttempt, servesKept: servesKept) }
        return .order(servesKept: servesKept)
    }

    /// The back-off after another failure: `previous`'s count plus one.
    public static func backOff(after previous: BackOff?, retryAfter: Int64?, reason: String, now: Int64) -> BackOff {
        let failures = (previous?.failures ?? 0) + 1
        let doubling = min(longestWait, firstWait << min(failures - 1, 20))
        let wait = max(doubling, min(retryAfter ?? 0, 7 * 86_400))
        return BackOff(failures: failures, nextAttempt: now + wait, reason: reason)
    }
}
