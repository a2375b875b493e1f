import ConfCore
import ConfRendezvous
import ConfWire
import Testing

/// Fair sharing of the room table (docs/SECURITY.md, "Rate limits"). Refusals: `rate-limited`
/// (HTTP 429) for one client's or network's limits, `server-full` (HTTP 503) for the whole table.
@Suite struct RendezvousCreationTests {
    private func isRateLimited(_ result: Result<RoomCreated, RendezvousCore.CreateRoomFailure>) -> Bool {
        if case .failure(.rateLimited) = result { true } else { false }
    }

    private func create(_ h: RendezvousHarness, from address: String) -> Result<RoomCreated, RendezvousCore.CreateRoomFailure> {
        Result { () throws(RendezvousCore.CreateRoomFailure) in try h.tryCreateRoom(from: address) }
    }

    @Test func creationIsLimitedPerMinutePerClient() {
        var config = RendezvousConfig()
        config.roomsPerMinutePerAddress = 3
        let h = RendezvousHarness(config: config)
        for _ in 0..<3 { #expect(throws: Never.self) { try h.tryCreateRoom(from: "192.0.2.1") } }
        #expect(isRateLimited(create(h, from: "192.0.2.1")))
        #expect(throws: Never.self) { try h.tryCreateRoom(from: "192.0.2.2") }
        h.tick(after: .seconds(61))
        #expect(throws: Never.self) { try h.tryCreateRoom(from: "192.0.2.1") }
    }

    /// Eleven addresses of one /64 are one client.
    @Test func elevenAddressesOfOneIPv6SlashSixtyFourShareOneQuota() {
        var config = RendezvousConfig()
        config.roomsPerMinutePerAddress = 10
        let h = RendezvousHarness(config: config)
        for i in 1...10 { #expect(throws: Never.self) { try h.tryCreateRoom(from: "2001:db8:5:6::\(i)") } }
        #expect(isRateLimited(create(h, from: "2001:db8:5:6:ffff::11")))
        #expect(throws: Never.self) { try h.tryCreateRoom(from: "2001:db8:5:7::1") }
    }

    @Test func aClientHoldsAtMostItsShareOfTheTable() {
        var config = RendezvousConfig()
        config.maxRooms = 1_000  // 10 a client, 100 a network
        config.roomsPerMinutePerAddress = 1_000
        config.roomsPerMinutePerNetwork = 1_000
        config.roomIdleTimeout = .seconds(60)
        let h = RendezvousHarness(config: config)
        for _ in 0..<10 { #expect(throws: Never.self) { try h.tryCreateRoom(from: "192.0.2.1") } }
        guard case .failure(.rateLimited(let why)) = create(h, from: "192.0.2.1") else { Issue.record("not refused"); return }
        #expect(why.contains("holds 10 rooms"))
        h.tick(after: .seconds(61))  // the empty rooms expire and give their places back
        #expect(throws: Never.self) { try h.tryCreateRoom(from: "192.0.2.1") }
    }

    @Test func aNetworkHoldsAtMostItsShareAndTheTableAnswersServerFull() {
        var config = RendezvousConfig()
        config.maxRooms = 100  // 1 a client, 10 a network
        config.roomsPerMinutePerNetwork = 1_000
        let h = RendezvousHarness(config: config)
        for i in 1...10 { #expect(throws: Never.self) { try h.tryCreateRoom(from: "198.51.100.\(i)") } }
        #expect(isRateLimited(create(h, from: "198.51.100.11")))
        for n in 0..<9 { for i in 1...10 { _ = create(h, from: "10.0.\(n).\(i)") } }
        #expect(h.core.roomCount == 100)
        #expect(create(h, from: "203.0.113.1") == .failure(.serverFull))
    }

    /// The reported flood: 19,996 requests from 667 addresses (in three /24s) no longer fill the
    /// default table, and a legitimate host elsewhere still gets its room.
    @Test func aFloodFromSixHundredAddressesLeavesRoomForOthers() {
        let h = RendezvousHarness()
        var created = 0
        for request in 0..<19_996 {
            let n = request % 667
            if case .success = create(h, from: "172.16.\(n / 250).\(n % 250 + 1)") { created += 1 }
            h.clock.advance(by: .microseconds(195))  // 3.9 s in all
        }
        #expect(created == 3 * h.core.config.roomsPerMinutePerNetwork)  // each /24 its 120 a minute
        #expect(h.core.roomCount < h.core.config.maxRooms)
        #expect(throws: Never.self) { try h.tryCreateRoom(from: "192.0.2.200") }
    }

    /// Two workers of one process share its rooms: one may hold them all while the other holds
    /// none (rooms are made where their request lands), the other is refused `server-full` when
    /// they are spent, and a room forgotten on either gives its place back to both.
    @Test func workersSharingARoomBudgetTakeWhatTheOthersLeave() {
        var config = RendezvousConfig()
        config.maxRooms = 1_000  // each worker's share, for the per-client and per-network caps
        config.roomIdleTimeout = .seconds(60)
        let budget = SharedBudget(capacity: 3)
        let busy = RendezvousHarness(config: config), quiet = RendezvousHarness(config: config, seed: 2)
        busy.core.roomBudget = budget
        quiet.core.roomBudget = budget
        for i in 1...3 { #expect(throws: Never.self) { try busy.tryCreateRoom(from: "192.0.2.\(i)") } }
        #expect(create(quiet, from: "198.51.100.1") == .failure(.serverFull))
        #expect(create(busy, from: "192.0.2.9") == .failure(.serverFull))
        busy.tick(after: .seconds(61))  // busy's empty rooms expire and give their places back
        #expect(budget.inUse == 0)
        #expect(throws: Never.self) { try quiet.tryCreateRoom(from: "198.51.100.1") }
        #expect(budget.inUse == 1 && quiet.core.roomCount == 1 && busy.core.roomCount == 0)
    }
}
