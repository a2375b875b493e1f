import Foundation
import Testing

/// Text from the network never reaches a terminal raw: a peer's chat full of control sequences is
/// shown escaped in every human line, and exact in `--json` events.
@Suite struct TerminalSafetyTests {
    /// Clear screen, an OSC window title ended by BEL, a carriage return over the name, a
    /// backspace, a right-to-left override and a C1 CSI.
    static let hostile = "hi\u{1B}[2J\u{1B}]0;owned\u{07}\rann: fake\u{08}\u{202E}gnp.exe\u{9B}31m"
    static let raw: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\r", "\u{08}", "\u{202E}", "\u{9B}"]
    static let shown = "hi\\e[2J\\e]0;owned\\a\\rann: fake\\b\\u202egnp.exe\\u009b31m"

    static func hasRawControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { raw.contains($0) }
    }

    @Test func hostileChatIsEscapedForPeopleAndExactForScripts() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        let reader = try ConfProcess(command + ["--as", "bob"])  // human output on stdout
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { reader.stdout.contains("Joined") })
        let sender = try ConfProcess(command + ["--as", "mal", "--json", "--say", Self.hostile])

        let chat = try #require(host.waitForEvent("chat", timeout: .seconds(20)))
        #expect(chat["text"] as? String == Self.hostile, "JSON carries the exact text")
        #expect(ConfProcess.waitUntil(timeout: .seconds(20)) { reader.stdout.contains("mal: " + Self.shown) }, "\(reader.stdout)")
        #expect(ConfProcess.waitUntil { host.stderr.contains("mal: " + Self.shown) }, "\(host.stderr)")
        #expect(sender.waitForEvent("sent", where: { $0["text"] as? String == Self.hostile }) != nil)

        for p in [reader, sender, host] { p.signal(SIGTERM) }
        for p in [reader, sender, host] { #expect(p.waitForExit() == 0) }
        #expect(!Self.hasRawControls(reader.stdout) && !Self.hasRawControls(reader.stderr))
        #expect(!Self.hasRawControls(host.stderr) && !Self.hasRawControls(sender.stderr))
        // JSON lines escape the controls too (as \u001b...), so even they print nothing raw.
        #expect(!Self.hasRawControls(host.stdout) && !Self.hasRawControls(sender.stdout))
        #expect(sender.stderr.contains("you → ann: " + Self.shown))
    }
}
