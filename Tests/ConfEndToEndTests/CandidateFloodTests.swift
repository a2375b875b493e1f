import Foundation
import Testing

/// A UDP socket on a loopback address that counts the datagrams (ICE checks) sent to it.
final class UDPWatcher {
    let fd: Int32
    let port: UInt16

    init(address: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_addr.s_addr = inet_addr(address)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { close(fd); throw TestFailure("cannot bind a UDP socket on \(address): errno \(errno)") }
        port = UInt16(bigEndian: sin.sin_port)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// Datagrams that arrived since the last call.
    func drain() -> Int {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var count = 0
        while recv(fd, &buffer, buffer.count, 0) > 0 { count += 1 }
        return count
    }
}

/// A hostile peer floods conf with made-up candidates (issue 7): conf checks at most 50 of them,
/// says so, and stops every check the moment it gives the link up.
@Suite struct CandidateFloodTests {
    static let offer = [
        "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:0",
        "a=ice-ufrag:mall", "a=ice-pwd:malloryMalloryMallory12",
        "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
        "a=setup:actpass", "a=sctp-port:5000", "",
    ].joined(separator: "\r\n")

    @Test func aFloodOfCandidatesIsCappedAndChecksStopWhenTheLinkIsAbandoned() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom()
        // A 1 s timeout gives the link up while libnice is still pacing checks through the 50
        // admitted candidates (20 ms apart per pair): the checks still due must never go out.
        let conf = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "conf", "--json",
                                    "--connect-timeout", "1"])
        #expect(conf.waitForEvent("joined") != nil)
        let watchers = try (0..<100).map { _ in try UDPWatcher(address: "127.0.0.5") }
        let mallory = try RawWebSocket(port: server.port, room: room.room)
        mallory.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"mallory"}"#)
        let joined = try #require(mallory.receiveJSON())
        let confID = try #require((joined["peers"] as? [[String: Any]])?.first?["id"] as? String)
        func signal(_ payload: [String: Any]) throws {
            let message: [String: Any] = ["type": "signal", "to": confID, "payload": payload]
            mallory.sendText(String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self))
        }
        try signal(["type": "offer", "sdp": Self.offer])
        // 100 candidates at watched ports, then 2,900 more elsewhere.
        for (n, watcher) in watchers.enumerated() {
            try signal(["type": "candidate", "mid": "0", "candidate": "candidate:\(n) 1 udp 2130706431 127.0.0.5 \(watcher.port) typ host"])
        }
        for n in 100..<3_000 {
            try signal(["type": "candidate", "mid": "0", "candidate": "candidate:\(n) 1 udp 2130706431 127.0.0.6 \(10_000 + n) typ host"])
        }
        var counts = [Int](repeating: 0, count: watchers.count)
        func collect() { for (i, watcher) in watchers.enumerated() { counts[i] += watcher.drain() } }
        ConfProcess.waitUntil(timeout: .seconds(10)) {
            collect()
            return !conf.events(ofType: "peer-disconnected").isEmpty
        }
        let abandoned = conf.events(ofType: "peer-disconnected").first
        #expect(abandoned?["code"] as? String == "no-path", "conf: \(conf.stdout)")
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) {  // stderr may come a moment after the event
            conf.stderr.contains("mallory") && conf.stderr.contains("more than 50 ICE candidates")
        }, "\(conf.stderr)")
        collect()
        #expect(counts[..<50].reduce(0, +) > 0, "conf checked none of the first 50 candidates")
        #expect(counts[50...].reduce(0, +) == 0, "conf checked candidates beyond the cap: \(counts)")
        // Within a second of giving the link up, checks stop for good.
        let settled = ContinuousClock.now + .seconds(1)
        ConfProcess.waitUntil(timeout: .seconds(1)) { collect(); return ContinuousClock.now >= settled }
        collect()
        let before = counts.reduce(0, +)
        ConfProcess.waitUntil(timeout: .seconds(3)) { collect(); return false }
        #expect(counts.reduce(0, +) == before, "checks went on after the link was abandoned: \(counts.reduce(0, +) - before) more")
        #expect(conf.waitForExit(timeout: .milliseconds(100)) == nil)
        conf.signal(SIGTERM)
        #expect(conf.waitForExit() == 0)
    }
}
