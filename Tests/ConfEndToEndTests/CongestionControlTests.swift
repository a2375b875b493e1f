import Foundation
import Testing

/// Congestion control on real sockets: bob's uplink is capped with a token bucket
/// (`tc qdisc ... tbf`, Tests/Network/lossy-link.sh for the namespaces), and his link to ann must
/// settle under the cap instead of filling the bucket's queue, while ann still gets his video.
@Suite(.serialized, .enabled(if: NetworkNamespaces.available, "needs root and network namespaces (ip netns, iptables, tc)"))
struct CongestionControlTests {
    @Test func aCappedUplinkSettlesUnderTheCapAndVideoGoesOn() throws {
        let prefix = "cc\(getpid() % 10_000)"
        try LossTests.run(["up", prefix, "0"])
        defer { try? LossTests.run(["down", prefix]) }
        try NetworkChangeTests.ip(["netns", "exec", "\(prefix)-b", "tc", "qdisc", "add", "dev", "\(prefix)-y", "root", "tbf",
                                   "rate", "400kbit", "burst", "8kb", "latency", "200ms"])
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("conf-cc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: out) }
        let host = try ConfProcess(["host", "--listen", "10.9.0.1:7373", "--as", "ann", "--json", "--record", out.path],
                                   namespace: "\(prefix)-a")
        defer { host.signal(SIGKILL) }
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        let bob = try ConfProcess(command + ["--as", "bob", "--json", "--stats", "--video-source", "pattern:noisy", "--audio-source", "tone:440"],
                                  namespace: "\(prefix)-b")
        defer { bob.signal(SIGKILL) }
        #expect(bob.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(bob.stderr)")
        // Let the estimate settle, then read what bob's link to ann reports for the next 6 s.
        _ = bob.waitForEvent("link-stats", timeout: .seconds(30)) { ($0["t"] as? Double ?? 0) > 12 }
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { Self.linkFigures(bob).filter { $0.t > 12 }.count >= 3 }, "\(bob.stdout)")
        let settled = Self.linkFigures(bob).filter { $0.t > 12 }
        #expect(!settled.isEmpty && settled.allSatisfy { $0.estimate <= 480 }, "estimates over the 400 kbit/s cap: \(settled)")
        #expect(settled.allSatisfy { $0.sent <= 480 }, "sent over the cap: \(settled)\n\(bob.stderr.suffix(3000))")
        #expect(settled.contains { $0.layers >= 1 }, "video paused on a link that carries 400 kbit/s: \(settled)")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
        let frames = try VideoTests.frames(out.appendingPathComponent("bob.ivf").path).frames.count
        #expect(frames > 50, "ann recorded \(frames) frames of bob's video")
    }

    /// (t, estimate kbit/s, sent kbit/s, layers) of each `link-stats` bob printed for his one link.
    static func linkFigures(_ process: ConfProcess) -> [(t: Double, estimate: Double, sent: Double, layers: Int)] {
        process.events(ofType: "link-stats").compactMap { event in
            guard let t = event["t"] as? Double, let link = (event["links"] as? [[String: Any]])?.first,
                  let estimate = link["estimate_kbps"] as? Double, let sent = link["sent_kbps"] as? Double else { return nil }
            return (t, estimate, sent, link["video_layers"] as? Int ?? 0)
        }
    }
}
