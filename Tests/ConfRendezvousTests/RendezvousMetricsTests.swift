import ConfCore
import ConfRendezvous
import ConfWire
import Testing

/// `GET /v1/metrics`: what the page counts, in the Prometheus text format.
@Suite struct RendezvousMetricsTests {
    @Test func thePageCountsRoomsJoinsWrongPinsRelaysAndRefusals() throws {
        let h = RendezvousHarness()
        let room = h.createRoom()
        let (ann, annJoined) = h.join(room, name: "ann")
        let (_, bobJoined) = h.join(room, name: "bob")
        let wrong = h.open()
        h.send(wrong, .join(room: room.room, pin: Pin(room.pin.digits == "000000" ? "111111" : "000000")!, name: "eve"))
        let bob = try #require(bobJoined?.you)
        h.send(ann, .signal(to: bob, payload: .object(["type": "offer"])))
        h.send(ann, .signal(to: bob, payload: .object(["type": "candidate"])))
        #expect(annJoined != nil)
        let page = h.core.metricsText(labels: [("instance", "2")])
        let lines = Set(page.split(separator: "\n").map(String.init))
        for expected in ["conf_rendezvous_rooms{instance=\"2\"} 1", "conf_rendezvous_participants{instance=\"2\"} 2",
                         "conf_rendezvous_rooms_created_total{instance=\"2\"} 1", "conf_rendezvous_joins_total{instance=\"2\"} 2",
                         "conf_rendezvous_wrong_pins_total{instance=\"2\"} 1", "conf_rendezvous_relays_total{instance=\"2\"} 2",
                         "conf_rendezvous_refusals_total{instance=\"2\",code=\"wrong-pin\"} 1",
                         "conf_rendezvous_refusals_total{instance=\"2\",code=\"room-full\"} 0",
                         "# TYPE conf_rendezvous_joins_total counter", "# TYPE conf_rendezvous_rooms gauge"] {
            #expect(lines.contains(expected), "\(expected) missing from:\n\(page)")
        }
        // Every sample line is NAME{LABELS} VALUE or NAME VALUE with a whole number.
        for line in lines where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            #expect(parts.count == 2 && Int(parts[1]) != nil && parts[0].hasPrefix("conf_rendezvous_"), "\(line)")
        }
    }

    @Test func labelValuesAreEscaped() {
        let page = RendezvousHarness().core.metricsText(labels: [("site", "a\"b\\c\nd")])
        #expect(page.contains(#"conf_rendezvous_rooms{site="a\"b\\c\nd"} 0"#))
    }
}

/// The figures one process of a rendezvous passes to the others.
@Suite struct MetricsSnapshotEncodingTests {
    @Test func aSnapshotSurvivesItsLine() {
        var snapshot = RendezvousMetricsSnapshot()
        (snapshot.rooms, snapshot.connections, snapshot.participants) = (3, 12, 10)
        (snapshot.counters.joins, snapshot.counters.relays, snapshot.counters.wrongPins) = (14, 900, 2)
        snapshot.counters.refusals = [.wrongPin: 2, .roomFull: 1]
        snapshot.webSocketDrops = [.slowReader: 4, .framing: 1]
        #expect(RendezvousMetricsSnapshot(encoded: snapshot.encoded) == snapshot)
    }

    @Test func theTransportsDropsAreOnThePageByReason() {
        var snapshot = RendezvousMetricsSnapshot()
        snapshot.webSocketDrops = [.tooLarge: 3]
        let lines = Set(RendezvousMetrics.text([([("worker", "0")], snapshot)]).split(separator: "\n").map(String.init))
        #expect(lines.contains("conf_rendezvous_websocket_drops_total{worker=\"0\",reason=\"too-large\"} 3"))
        #expect(lines.contains("conf_rendezvous_websocket_drops_total{worker=\"0\",reason=\"slow-reader\"} 0"))
    }

    @Test(arguments: ["", "1 2 3", "1 2 3 4 5 6 7 x", "1 2 3 4 5 6 7 -8", "1 2 3 4 5 6 7 8 nope=1", "1 2 3 4 5 6 7 8 wrong-pin=x", "1 2 3 4 5 6 7 8 drop:lost=1",
                      "1 2 3 4 5 6 7 8 drop:framing=-1",
                      String(repeating: "1 ", count: 100)])
    func anythingElseIsRefused(_ text: String) {
        #expect(RendezvousMetricsSnapshot(encoded: text) == nil)
    }
}
