import ConfCore
import ConfRendezvous
import Testing

@Suite struct ConnectionAdmissionTests {
    let start = Instant(nanoseconds: 1_000_000_000)

    @Test func refusesAClientOverItsCapAndAdmitsItAgainOnceOneCloses() {
        var table = ConnectionAdmission(limits: .init(maxTotal: 100, maxPerClient: 3))
        let client = ClientAddress("192.0.2.7")
        for id in 1...3 { #expect(table.accept(UInt64(id), from: client, now: start) == .admit(evicting: nil)) }
        #expect(table.accept(4, from: client, now: start) == .refuse(.tooManyFromClient))
        #expect(table.accept(5, from: ClientAddress("192.0.2.8"), now: start) == .admit(evicting: nil))
        table.closed(2)
        #expect(table.accept(6, from: client, now: start) == .admit(evicting: nil))
        #expect(table.count(from: client) == 3)
    }

    /// Addresses of one IPv6 /64 share one cap; another /64 has its own.
    @Test func countsAnIPv6Slash64AsOneClient() {
        var table = ConnectionAdmission(limits: .init(maxTotal: 100, maxPerClient: 2))
        #expect(table.accept(1, from: ClientAddress("2001:db8:1:2::a"), now: start) == .admit(evicting: nil))
        #expect(table.accept(2, from: ClientAddress("2001:db8:1:2:ffff::b"), now: start) == .admit(evicting: nil))
        #expect(table.accept(3, from: ClientAddress("2001:db8:1:2::c"), now: start) == .refuse(.tooManyFromClient))
        #expect(table.accept(4, from: ClientAddress("2001:db8:1:3::a"), now: start) == .admit(evicting: nil))
        #expect(table.accept(5, from: ClientAddress("::ffff:192.0.2.1"), now: start) == .admit(evicting: nil))
        #expect(table.count(from: ClientAddress("192.0.2.1")) == 1)
    }

    @Test func expiresAConnectionThatSendsNoCompleteRequestInTime() {
        var table = ConnectionAdmission(limits: .init(maxTotal: 100, requestTimeout: .seconds(10)))
        let client = ClientAddress("192.0.2.7")
        _ = table.accept(1, from: client, now: start)
        _ = table.accept(2, from: client, now: start + .seconds(5))
        #expect(table.expire(now: start + .milliseconds(9_999)).isEmpty)
        #expect(table.expire(now: start + .seconds(10)) == [1])
        #expect(table.count(from: client) == 1)
        #expect(table.expire(now: start + .seconds(15)) == [2])
        #expect(table.count == 0)
    }

    /// Each request and each answer gives the connection a new deadline (keep-alive); a WebSocket
    /// has none (RendezvousCore times those out).
    @Test func requestsRestartTheDeadlineAndWebSocketsHaveNone() {
        var table = ConnectionAdmission(limits: .init(maxTotal: 100, requestTimeout: .seconds(10)))
        let client = ClientAddress("192.0.2.7")
        _ = table.accept(1, from: client, now: start)
        _ = table.accept(2, from: client, now: start)
        table.requestRead(1, now: start + .seconds(8))
        table.requestAnswered(1, now: start + .seconds(9))
        table.requestRead(2, now: start + .seconds(1))
        table.upgraded(2)
        #expect(table.expire(now: start + .seconds(18)).isEmpty)
        #expect(table.expire(now: start + .seconds(19)) == [1])
        #expect(table.expire(now: start + .seconds(3600)).isEmpty)
        #expect(table.count == 1)
    }

    /// A full table makes room by closing the connection that has waited longest for its
    /// request; WebSockets are never evicted, and only when all are WebSockets is a newcomer refused.
    @Test func aNewcomerEvictsTheLongestWaitingSlowConnectionWhenFull() {
        var table = ConnectionAdmission(limits: .init(maxTotal: 3, maxPerClient: 10))
        _ = table.accept(1, from: ClientAddress("192.0.2.1"), now: start)
        _ = table.accept(2, from: ClientAddress("192.0.2.2"), now: start + .seconds(1))
        _ = table.accept(3, from: ClientAddress("192.0.2.3"), now: start + .seconds(2))
        table.upgraded(1)
        #expect(table.accept(4, from: ClientAddress("192.0.2.4"), now: start + .seconds(3)) == .admit(evicting: 2))
        #expect(table.count(from: ClientAddress("192.0.2.2")) == 0)
        table.upgraded(3)
        table.upgraded(4)
        #expect(table.accept(5, from: ClientAddress("192.0.2.5"), now: start + .seconds(4)) == .refuse(.full))
        table.closed(4)
        #expect(table.accept(5, from: ClientAddress("192.0.2.5"), now: start + .seconds(5)) == .admit(evicting: nil))
    }

    /// Two workers of one process share a budget of 4: one may hold 3 WebSockets while the other
    /// holds 1 (a fixed share of 2 each refused the third); when the budget is spent, a worker
    /// evicts only its own waiting connections, refuses when it has none, and a close on either
    /// gives the place back to both.
    @Test func workersSharingABudgetTakeWhatTheOthersLeave() {
        let budget = SharedBudget(capacity: 4)
        var busy = ConnectionAdmission(limits: .init(maxTotal: 4, maxPerClient: 10), sharing: budget)
        var quiet = ConnectionAdmission(limits: .init(maxTotal: 4, maxPerClient: 10), sharing: budget)
        for id in 1...3 {
            #expect(busy.accept(UInt64(id), from: ClientAddress("192.0.2.\(id)"), now: start) == .admit(evicting: nil))
            busy.upgraded(UInt64(id))
        }
        #expect(quiet.accept(10, from: ClientAddress("198.51.100.1"), now: start) == .admit(evicting: nil))
        #expect(budget.inUse == 4)
        #expect(busy.accept(4, from: ClientAddress("192.0.2.4"), now: start + .seconds(1)) == .refuse(.full))
        #expect(quiet.accept(11, from: ClientAddress("198.51.100.2"), now: start + .seconds(1)) == .admit(evicting: 10))
        #expect(budget.inUse == 4 && quiet.count == 1)
        busy.closed(2)
        #expect(budget.inUse == 3)
        #expect(quiet.accept(12, from: ClientAddress("198.51.100.3"), now: start + .seconds(2)) == .admit(evicting: nil))
        #expect(quiet.expire(now: start + .seconds(3600)) == [11, 12])
        #expect(budget.inUse == 2 && busy.count == 2)
    }
}
