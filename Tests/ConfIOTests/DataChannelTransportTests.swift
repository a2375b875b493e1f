import ConfCore
import ConfIO
import ConfWire
import Testing

/// Two data-channel endpoints back to back on a real event loop (usrsctp in AF_CONN mode; the
/// packets go straight across instead of through DTLS), and SCTP garbage thrown at one of them.
@Suite struct DataChannelTransportTests {
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
