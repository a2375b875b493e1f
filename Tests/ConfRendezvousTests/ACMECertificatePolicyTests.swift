import ConfRendezvous
import Testing

/// When the rendezvous orders a certificate: never while a good one is kept, at half its life,
/// and after failures only once the back-off has passed.
struct ACMECertificatePolicyTests {
    static let now: Int64 = 1_800_000_000
    static let directory = "https://acme-v02.api.letsencrypt.org/directory"
    /// Let's Encrypt's shortlived certificate: 160 hours, issued an hour ago.
    static let kept = ACMECertificatePolicy.Kept(identifier: "203.0.113.7", directory: directory, notBefore: now - 3_600, notAfter: now - 3_600 + 160 * 3_600)

    @Test func aGoodKeptCertificateIsServedUntilHalfItsLife() {
        let decision = ACMECertificatePolicy.decide(kept: Self.kept, backOff: nil, identifier: "203.0.113.7", directory: Self.directory, now: Self.now)
        #expect(decision == .serve(renewAt: Self.now - 3_600 + 80 * 3_600))
        // Past half its life: renewed while it is served.
        #expect(ACMECertificatePolicy.decide(kept: Self.kept, backOff: nil, identifier: "203.0.113.7", directory: Self.directory,
                                             now: Self.now + 80 * 3_600) == .order(servesKept: true))
    }

    @Test func anotherAddressAnotherDirectoryOrLessThanADayLeftOrders() {
        #expect(ACMECertificatePolicy.decide(kept: Self.kept, backOff: nil, identifier: "198.51.100.1", directory: Self.directory, now: Self.now)
                == .order(servesKept: false))
        #expect(ACMECertificatePolicy.decide(kept: Self.kept, backOff: nil, identifier: "203.0.113.7", directory: "https://other.example/dir", now: Self.now)
                == .order(servesKept: false))
        #expect(ACMECertificatePolicy.decide(kept: Self.kept, backOff: nil, identifier: "203.0.113.7", directory: Self.directory,
                                             now: Self.kept.notAfter - 86_399) == .order(servesKept: false))
        #expect(ACMECertificatePolicy.decide(kept: nil, backOff: nil, identifier: "203.0.113.7", directory: Self.directory, now: Self.now)
                == .order(servesKept: false))
    }

    @Test func failuresWaitLongerEachTimeAndAtLeastWhatTheCAAsked() {
        var backOff: ACMECertificatePolicy.BackOff?
        var waits: [Int64] = []
        for _ in 0..<13 {
            backOff = ACMECertificatePolicy.backOff(after: backOff, retryAfter: nil, reason: "connection refused", now: Self.now)
            waits.append(backOff!.nextAttempt - Self.now)
        }
        #expect(waits == [60, 120, 240, 480, 960, 1_920, 3_840, 7_680, 15_360, 30_720, 61_440, 86_400, 86_400])
        let limited = ACMECertificatePolicy.backOff(after: nil, retryAfter: 3 * 86_400, reason: "rate limited", now: Self.now)
        #expect(limited.nextAttempt == Self.now + 3 * 86_400 && limited.failures == 1)
        // A CA asking for a year is held to a week.
        #expect(ACMECertificatePolicy.backOff(after: nil, retryAfter: 365 * 86_400, reason: "", now: Self.now).nextAttempt == Self.now + 7 * 86_400)
    }

    @Test func noOrderDuringTheBackOffButTheKeptCertificateIsStillServed() {
        let backOff = ACMECertificatePolicy.BackOff(failures: 2, nextAttempt: Self.now + 120, reason: "timed out")
        #expect(ACMECertificatePolicy.decide(kept: nil, backOff: backOff, identifier: "203.0.113.7", directory: Self.directory, now: Self.now)
                == .wait(until: Self.now + 120, servesKept: false))
        #expect(ACMECertificatePolicy.decide(kept: Self.kept, backOff: backOff, identifier: "203.0.113.7", directory: Self.directory,
                                             now: Self.kept.notBefore + 80 * 3_600 - 60) == .serve(renewAt: Self.kept.notBefore + 80 * 3_600))
        let late = ACMECertificatePolicy.BackOff(failures: 2, nextAttempt: Self.now + 90 * 3_600, reason: "timed out")
        #expect(ACMECertificatePolicy.decide(kept: Self.kept, backOff: late, identifier: "203.0.113.7", directory: Self.directory,
                                             now: Self.now + 81 * 3_600) == .wait(until: Self.now + 90 * 3_600, servesKept: true))
        #expect(ACMECertificatePolicy.decide(kept: nil, backOff: backOff, identifier: "203.0.113.7", directory: Self.directory, now: Self.now + 120)
                == .order(servesKept: false))
    }

    @Test func aShortCertificateIsServedForThreeQuartersOfItsLifeAndRenewedAtHalf() {
        let short = ACMECertificatePolicy.Kept(identifier: "203.0.113.7", directory: Self.directory, notBefore: Self.now, notAfter: Self.now + 40)
        let decide = { (now: Int64) in ACMECertificatePolicy.decide(kept: short, backOff: nil, identifier: "203.0.113.7", directory: Self.directory, now: now) }
        #expect(decide(Self.now + 5) == .serve(renewAt: Self.now + 20))
        #expect(decide(Self.now + 25) == .order(servesKept: true))
        #expect(decide(Self.now + 31) == .order(servesKept: false))
    }
}
