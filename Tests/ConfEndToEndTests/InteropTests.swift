import Foundation
import Testing
import TestSupport

/// Interoperability with an independently written WebRTC stack: GStreamer's webrtcbin
/// (Tests/Interop/webrtcbin_peer.py) joins a conf participant's room through the rendezvous,
/// offers, and exchanges data-channel messages with it. This is the check that conf's SDP, ICE,
/// DTLS and SCTP are standard.
@Suite struct InteropTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop/webrtcbin_peer.py").path

    /// Runs the webrtcbin peer to the end; its exit status and what it printed.
    static func runPeer(_ arguments: [String], script: String = script) throws -> (Int32, String) {
        try runToEnd("/usr/bin/python3", [script] + arguments)
    }

    @Test func webrtcbinExchangesChatWithConf() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom(name: "interop")
        let conf = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "conf", "--json",
                                    "--say", "hello from conf", "--duration", "20"])
        #expect(conf.waitForEvent("joined") != nil)

        let (status, text) = try Self.runPeer([server.address, room.room, room.pin, "hello from gstreamer", "15"])
        #expect(!text.contains("No module named 'gi'") && !text.contains("no webrtcbin element"),
                "GStreamer is missing: run scripts/install-deps --test")
        #expect(status == 0, "webrtcbin peer: \(text)")
        #expect(text.contains("RECEIVED hello from conf"))

        let connected = conf.waitForEvent("peer-connected", timeout: .seconds(5))
        #expect(connected?["name"] as? String == "webrtcbin")
        // webrtcbin can neither export from DTLS nor commit to a secret: no words to check.
        #expect(connected?["sas"] as? String == "", "\(connected ?? [:])")
        // GStreamer 1.22's DTLS (gst-plugins-bad) offers only AES-CM: conf, which prefers AES-GCM,
        // falls back to the profile every WebRTC endpoint has, and the media and chat flow on it.
        #expect(connected?["srtp"] as? String == "AES128_CM_SHA1_80", "\(connected ?? [:])")
        // Announced when DTLS is up: webrtcbin answers no sender report at first, and waiting for
        // RTCP's round trip put `connected` ~500 ms after `dtls`.
        let setup = connected?["setup_ms"] as? [String: Any]
        #expect(setup?["dtls"] as? Double != nil && setup?["connected"] as? Double == setup?["dtls"] as? Double, "\(setup ?? [:])")
        #expect(conf.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "hello from gstreamer" } != nil)
        conf.signal(SIGTERM)
        #expect(conf.waitForExit() == 0)
    }

    /// webrtcbin offering Opus and VP8 with transport-cc (Tests/Interop/webrtcbin_video_peer.py)
    /// decodes conf's video. It asks for no key frame (no PLI), so it decoded nothing while a new
    /// link got conf's deltas first; a new link now starts at a key frame.
    @Test func webrtcbinDecodesConfsVideo() throws {
        // Plain ws://: the webrtcbin peer speaks the protocol over a plain WebSocket.
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json", "--resolution", "240p", "--video-source", "pattern"])
        let room = try #require(host.waitForEvent("room"))
        // The join command ends "--server HOST:PORT".
        let address = try #require((room["join_command"] as? String)?.split(separator: " ").last.map(String.init))
        let videoPeer = URL(fileURLWithPath: Self.script).deletingLastPathComponent().appendingPathComponent("webrtcbin_video_peer.py").path
        let (_, text) = try Self.runPeer([address, try #require(room["room"] as? String), try #require(room["pin"] as? String), "6", "200"],
                                         script: videoPeer)
        let seconds = text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        let decoded = seconds.compactMap { $0["frames"] as? Int }
        #expect(text.contains("DONE"), "webrtcbin peer: \(text)")
        // conf sends the pattern at 15 frames a second; the peer counts what its decoder put out.
        #expect(decoded.dropFirst(2).reduce(0, +) >= 30, "frames webrtcbin decoded each second: \(decoded)")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
    }

    /// A peer whose offer carries only sha-384 and sha-512 fingerprints of its real certificate
    /// (RFC 8122 section 5): conf verifies them and connects. It used to refuse the offer.
    @Test func anOfferWithSHA384AndSHA512FingerprintsConnects() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom(name: "fingerprints")
        let conf = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "conf", "--json",
                                    "--say", "hello from conf", "--duration", "20"])
        #expect(conf.waitForEvent("joined") != nil)
        let (status, text) = try Self.runPeer([server.address, room.room, room.pin, "hello from gstreamer", "15",
                                               "--fingerprints=sha-384,sha-512"])
        #expect(status == 0, "webrtcbin peer: \(text)\nconf: \(conf.stderr)")
        #expect(text.contains("RECEIVED hello from conf"))
        #expect(conf.waitForEvent("peer-connected", timeout: .seconds(5))?["name"] as? String == "webrtcbin")
        #expect(conf.events(ofType: "peer-disconnected").isEmpty)
        conf.signal(SIGTERM)
        #expect(conf.waitForExit() == 0)
    }
}

/// Opus audio both ways with GStreamer: webrtcbin sends a 660 Hz tone and must hear conf's 440 Hz;
/// conf records webrtcbin and must hear 660 Hz.
@Suite struct AudioInteropTests {
    @Test func webrtcbinAndConfHearEachOther() throws {
        try hearEachOther(opusFrameMilliseconds: 20)
    }

    /// webrtcbin's opusenc putting 60 ms in each packet (RFC 7587 allows up to 120): conf plays
    /// them a frame at a time and records the tone at its pace.
    @Test func confPlaysWebrtcbinsSixtyMillisecondPackets() throws {
        try hearEachOther(opusFrameMilliseconds: 60)
    }

    func hearEachOther(opusFrameMilliseconds: Int) throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom(name: "interop")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-interop-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let conf = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "conf", "--json",
                                    "--say", "hello from conf", "--audio-source", "tone:440", "--record", dir.path])
        #expect(conf.waitForEvent("joined") != nil)
        let (status, text) = try InteropTests.runPeer([server.address, room.room, room.pin, "hello from gstreamer", "20", "660", "440",
                                                       "--opus-frame-ms=\(opusFrameMilliseconds)"])
        #expect(status == 0, "webrtcbin peer: \(text)")
        #expect(text.contains("HEARD 440"))
        // conf's recording of webrtcbin: a second of its tone.
        let file = dir.appendingPathComponent("webrtcbin.wav").path
        conf.signal(SIGTERM)
        #expect(conf.waitForExit() == 0)
        let samples = try AudioTests.samples(file)
        #expect(samples.count >= 24_000, "only \(samples.count) samples from webrtcbin")
        #expect(AudioTests.tonePower(samples.suffix(12_000), 660) > 0.01)
        #expect(!conf.stderr.contains("sends audio in"), "conf: \(conf.stderr)")
    }
}

/// A listener that ignores its role: webrtcbin joins with the listen-only pin, offers sendrecv Opus,
/// applies conf's answer as if it said sendrecv, sends a tone and a chat message anyway. conf must
/// answer sendonly, and neither record, play, report as talking nor deliver anything from it.
@Suite struct ListenerEnforcementTests {
    @Test func aListenerThatSendsAnywayIsNotHeardNorRead() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom(name: "interop")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-listener-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let conf = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "conf", "--json",
                                    "--say", "hello from conf", "--audio-source", "tone:440", "--record", dir.path])
        #expect(conf.waitForEvent("joined") != nil)
        let (_, text) = try InteropTests.runPeer([server.address, room.room, room.listenPin, "chat from a listener", "12", "660", "440",
                                                  "--ignore-answer"])
        #expect(text.contains("ANSWER-DIRECTION a=sendonly"), "webrtcbin peer: \(text)")
        #expect(!text.contains("ANSWER-DIRECTION a=sendrecv"))
        #expect(text.contains("HEARD 440"), "the listener still hears the publisher: \(text)")
        // Its media reached conf and was dropped unread; its chat was not delivered.
        let ignored = conf.waitForEvent("listener-ignored", timeout: .seconds(5)) { $0["what"] as? String == "media" }
        #expect(ignored != nil, "conf: \(conf.stdout)")
        #expect(conf.waitForEvent("listener-ignored", timeout: .seconds(5)) { $0["what"] as? String == "chat" } != nil)
        conf.signal(SIGTERM)
        #expect(conf.waitForExit() == 0)
        #expect(conf.events(ofType: "chat").isEmpty)
        let listener = conf.events(ofType: "peer-connected").first?["peer"] as? String
        #expect(listener != nil)
        #expect(!conf.events(ofType: "talking").contains { $0["peer"] as? String == listener })
        #expect(fileSize(dir.appendingPathComponent("webrtcbin.wav").path) <= 44, "conf recorded the listener")
    }
}
