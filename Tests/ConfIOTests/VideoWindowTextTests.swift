import ConfCore
@testable import ConfIO
import Testing

/// Names on the window's tiles come from the network: shown escaped and bounded, as in the terminal.
@Suite struct VideoWindowTextTests {
    @Test func aHostileNameIsEscapedAndBounded() {
        let shown = VideoWindow.printable("\u{1B}]0;pwned\u{07}ann\u{202E}gnp.exe\r", limit: 40)
        #expect(!shown.unicodeScalars.contains { TerminalEscape.needsEscape($0) }, "\(shown)")
        #expect(shown.contains("\\e") && shown.contains("ann"))
        let long = VideoWindow.printable(String(repeating: "a", count: 100), limit: 40)
        #expect(long.count == 40 && long.hasSuffix("…"))
        #expect(VideoWindow.printable("👩‍💻 zoë", limit: 40) == "👩‍💻 zoë", "joiners in emoji and accents stay")
    }
}
