import Foundation
import Testing

/// Interoperability with an independently written WebRTC stack: GStreamer's webrtcbin
/// (Tests/Interop/webrtcbin_peer.py) joins a conf participant's room through the rendezvous,
/// offers, and exchanges data-channel messages with it. This is the check that conf's SDP, ICE,
/// DTLS and SCTP are standard.
@Suite struct InteropTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop/webrtcbin_peer.py").path

    @Test func webrtcbinExchangesChatWithConf() throws {
        let server = try RendezvousProcess()
        let room = try server.createRoom(name: "interop")
        let conf = try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", "conf", "--json",
                                    "--say", "hello from conf", "--duration", "20"])
        #expect(conf.waitForEvent("joined") != nil)

        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        peer.arguments = [Self.script, server.address, room.room, room.pin, "hello from gstreamer", "15"]
        let output = Pipe()
        peer.standardOutput = output
        peer.standardError = output
        try peer.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        peer.waitUntilExit()
        #expect(!text.contains("No module named 'gi'") && !text.contains("no webrtcbin element"),
                "GStreamer is missing: run scripts/install-deps --test")
        #expect(peer.terminationStatus == 0, "webrtcbin peer: \(text)")
        #expect(text.contains("RECEIVED hello from conf"))

        let connected = conf.waitForEvent("peer-connected", timeout: .seconds(5))
        #expect(connected?["name"] as? String == "webrtcbin")
        #expect((connected?["sas"] as? String)?.split(separator: " ").count == 4)
        #expect(conf.waitForEvent("chat", timeout: .seconds(5)) { $0["text"] as? String == "hello from gstreamer" } != nil)
        conf.signal(SIGTERM)
        #expect(conf.waitForExit() == 0)
    }
}
