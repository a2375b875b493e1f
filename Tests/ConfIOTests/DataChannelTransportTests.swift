import ConfCore
import ConfIO
import ConfWire
import Testing

/// Two data-channel endpoints back to back on a real event loop (usrsctp in AF_CONN mode; the
/// packets go straight across instead of through DTLS), and SCTP garbage thrown at one of them.
/// Serialized: usrsctp is one per process and not thread-safe, and each test runs its own loop.
@Suite(.serialized) struct DataChannelTransportTests {
    @Test func channelsOpenCarryTextAndShrugOffGarbage() {
        let loop = EventLoop()
        var received: [String] = []
        var opened: [String] = []
        var a: DataChannelTransport!
        var b: DataChannelTransport!
        a = DataChannelTransport(loop: loop, isDTLSClient: true) { packet in b.receive(packet) }
        b = DataChannelTransport(loop: loop, isDTLSClient: false) { packet in a.receive(packet) }
        b.onOpen = { label in opened.append(label) }
        b.onMessage = { label, text in received.append("\(label):\(text)") }
        a.onOpen = { _ in
            a.send(text: "hello", label: "chat")
            a.send(text: "", label: "chat")
            a.send(text: String(repeating: "é", count: 5000), label: "chat")
        }
        a.connect(remotePort: 5000)
        b.connect(remotePort: 5000)
        a.open(label: "chat")

        var random = SeededRandom(seed: 21)
        loop.schedule(after: .milliseconds(300)) {
            // Garbage: short, random, and a plausible SCTP common header with a bad checksum.
            b.receive([])
            b.receive([1, 2, 3])
            for length in [12, 16, 28, 100, 1200] { b.receive((0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }) }
            b.receive([0x13, 0x88, 0x13, 0x88, 0, 0, 0, 1, 0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 4])
            a.send(text: "after the garbage", label: "chat")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        loop.schedule(every: .milliseconds(20)) {
            if received.count >= 4 || ContinuousClock.now > deadline { loop.quit(); return false }
            return true
        }
        loop.run()
        #expect(opened == ["chat"])
        #expect(received == ["chat:hello", "chat:", "chat:" + String(repeating: "é", count: 5000), "chat:after the garbage"])
        #expect(a.send(text: "x", label: "no such channel") == false)
        a.close()
        b.close()
    }
}

/// Closing, as RFC 8831 section 6.7 does it: a channel by resetting its stream, the association
/// by ending it. The other side notices either.
extension DataChannelTransportTests {
    /// Two transports back to back with a "chat" channel open (opened by `a`, the DTLS client).
    final class Pair {
        let loop = EventLoop()
        var a: DataChannelTransport!
        var b: DataChannelTransport!
        var events: [String] = []

        init() {
            a = DataChannelTransport(loop: loop, isDTLSClient: true) { [unowned self] packet in self.b?.receive(packet) }
            b = DataChannelTransport(loop: loop, isDTLSClient: false) { [unowned self] packet in self.a?.receive(packet) }
            for (name, side) in [("a", a!), ("b", b!)] {
                side.onOpen = { [unowned self] label in self.events.append("\(name) open \(label)") }
                side.onChannelClosed = { [unowned self] label in self.events.append("\(name) closed \(label)") }
                side.onAssociationClosed = { [unowned self] in self.events.append("\(name) association closed") }
            }
            a.connect(remotePort: 5000)
            b.connect(remotePort: 5000)
            a.open(label: "chat")
        }

        /// Runs the loop until `done` holds or 5 s pass; true if it held.
        @discardableResult
        func run(until done: @escaping () -> Bool) -> Bool {
            let deadline = ContinuousClock.now + .seconds(5)
            var held = false
            loop.schedule(every: .milliseconds(5)) { [unowned self] in
                held = done()
                if held || ContinuousClock.now > deadline { self.loop.quit(); return false }
                return true
            }
            loop.run()
            return held
        }
    }

    @Test(arguments: ["a", "b"])
    func aChannelClosedByOneSideIsClosedForTheOther(_ closer: String) {
        let pair = Pair()
        #expect(pair.run { pair.events.contains("b open chat") })
        let (closing, other) = closer == "a" ? (pair.a!, pair.b!) : (pair.b!, pair.a!)
        let otherName = closer == "a" ? "b" : "a"
        #expect(closing.close(label: "chat"))
        #expect(closing.send(text: "after close", label: "chat") == false)
        #expect(pair.run { pair.events.contains("\(otherName) closed chat") && pair.events.contains("\(closer) closed chat") },
                "\(pair.events)")
        #expect(other.send(text: "to a closed channel", label: "chat") == false)
        #expect(!pair.events.contains { $0.hasSuffix("association closed") })
        // The association is still there: a new channel opens on it.
        pair.a.open(label: "chat-2")
        #expect(pair.run { pair.events.contains("b open chat-2") }, "\(pair.events)")
        pair.a.close()
        pair.b.close()
    }

    @Test func theEndOfTheAssociationIsNoticed() {
        let pair = Pair()
        #expect(pair.run { pair.events.contains("b open chat") })
        pair.a.close()
        #expect(pair.run { pair.events.contains("b association closed") }, "\(pair.events)")
        #expect(pair.b.send(text: "nobody there", label: "chat") == false)
        #expect(!pair.events.contains("a association closed"))  // the closing side hears nothing more
        pair.b.close()
    }
}
