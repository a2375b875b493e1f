import ConfRendezvous
import ConfWire
import Testing

/// Rooms split across instances by id (docs/DEPLOY.md): each instance mints its own ids and
/// refuses the others' without counting them as guesses.
@Suite struct RoomPartitionTests {
    @Test(arguments: ["0/3", "2/3", "9/10", "10/11", "42/100"])
    func aValidInstanceIsRead(_ text: String) throws {
        let partition = try #require(RoomPartition.parse(text))
        #expect("\(partition.index)/\(partition.count)" == text)
    }

    @Test(arguments: ["3/3", "-1/3", "1/0", "1/101", "a/3", "1/3/4", "1", "/3", "1/", " 1/3", "0001/3"])
    func aWrongInstanceIsRefused(_ text: String) {
        #expect(RoomPartition.parse(text) == nil)
    }

    @Test func idsStartWithTheInstanceOneDigitUpToTenTwoPast() {
        #expect(RoomPartition(index: 2, count: 3)?.prefix == "2")
        #expect(RoomPartition(index: 9, count: 10)?.prefix == "9")
        #expect(RoomPartition(index: 3, count: 12)?.prefix == "03")
        #expect(RoomPartition(index: 42, count: 100)?.prefix == "42")
        let partition = RoomPartition(index: 3, count: 12)!
        #expect(partition.owns(RoomID("0312-3456")!) && !partition.owns(RoomID("3012-3456")!))
    }

    @Test func anInstanceMintsOnlyItsOwnIds() {
        var config = RendezvousConfig()
        config.partition = RoomPartition(index: 2, count: 3)
        config.roomsPerMinutePerAddress = 1_000
        config.roomsPerMinutePerNetwork = 4_000
        let h = RendezvousHarness(config: config)
        let ids = (0..<200).map { _ in h.createRoom().room.rawValue }
        #expect(ids.allSatisfy { $0.hasPrefix("2") })
        #expect(Set(ids).count == 200)
    }

    @Test func aJoinOrResumeForAnotherInstancesRoomIsRefusedAndNotCountedAsAGuess() {
        var config = RendezvousConfig()
        config.partition = RoomPartition(index: 1, count: 3)
        config.wrongPinsPerClient = 2
        let h = RendezvousHarness(config: config, secret: 7)
        for _ in 0..<5 {
            let id = h.open()
            h.send(id, .join(room: RoomID("0123-4567")!, pin: Pin("123456")!, name: "ann"))
            #expect(h.lastError(id) == .wrongInstance)
        }
        // Not rate-limited by those: our own room still joins.
        let room = h.createRoom()
        let (_, joined) = h.join(room)
        #expect(joined != nil && room.room.rawValue.hasPrefix("1"))
        // A token of a room this instance does not hold (another instance shares nothing, but
        // say its key were the same) is refused the same way.
        var other = RendezvousConfig()
        other.partition = RoomPartition(index: 0, count: 3)
        let elsewhere = RendezvousHarness(config: other, secret: 7)
        let (_, there) = elsewhere.join(elsewhere.createRoom())
        let id = h.open()
        h.send(id, .resume(token: there?.resumeToken ?? ""))
        #expect(h.lastError(id) == .wrongInstance)
    }
}
