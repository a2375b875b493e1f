import Testing
import Foundation
@testable import ConfScreen

struct CallScreenTests {
    private func screen() -> CallScreen {
        var screen = CallScreen(commandsHelp: "mute, unmute, say TEXT")
        screen.header.roomName = "standup"
        screen.header.room = "4821-7734"
        screen.header.microphoneMuted = false
        screen.header.cameraOff = false
        screen.me = .init(id: "p1", name: "ann")
        var bob = CallScreen.Member(id: "p2", name: "bob")
        bob.connected = true
        bob.path = "host"
        bob.roundTrip = .milliseconds(12)
        bob.lossPercent = 0
        bob.words = ["apple", "river", "stone", "cloud"]
        var cy = CallScreen.Member(id: "p3", name: "cy")
        cy.connected = true
        cy.roundTrip = .milliseconds(500)
        screen.others = [bob, cy]
        screen.invitation = [.init(label: "Those who join:", link: Self.link), .init(label: "Listeners:", link: Self.link + "2")]
        return screen
    }

    static let link = "https://203.0.113.77:7373/#room=4821-7734&pin=381204&fp=k3f72m7qx4abh6tnc2wzp7r5ve"

    private func rows(_ drawing: CallScreen.Drawing) -> [String] { (0..<drawing.canvas.rows).map { drawing.canvas.text(row: $0) } }

    @Test func theRosterShowsEveryoneWithQualityAndTheWordsUntilCompared() {
        var screen = screen()
        let drawn = rows(screen.draw(columns: 100, rows: 20))
        #expect(drawn[0].contains("standup 4821-7734") && drawn[0].contains("00:00") && drawn[0].contains("mic on"))
        #expect(drawn[1].contains("ann (you)"))
        #expect(drawn[2].contains("bob (p2)") && drawn[2].contains("●●●") && drawn[2].contains("12ms") && drawn[2].contains("apple river stone cloud"))
        #expect(drawn[3].contains("cy (p3)") && drawn[3].contains("●○○") && !drawn[3].contains("listener"))
        screen.others[1].listener = true
        #expect(rows(screen.draw(columns: 100, rows: 20))[3].contains("listener"))
        _ = screen.handle(.tab)
        _ = screen.handle(.character("c"))
        let after = rows(screen.draw(columns: 100, rows: 20))
        #expect(after[2].hasPrefix("›") && !after[2].contains("apple"))
    }

    @Test func singleKeysBecomeTheCommandsStdinTakes() {
        var screen = screen()
        #expect(screen.handle(.character("m")) == .command("mute"))
        screen.header.microphoneMuted = true
        #expect(screen.handle(.character("m")) == .command("unmute"))
        #expect(screen.handle(.character("v")) == .command("camera off"))
        #expect(screen.handle(.character("x")) == nil && screen.hint != nil)  // nobody selected among two
        _ = screen.handle(.tab)
        _ = screen.handle(.tab)
        #expect(screen.handle(.character("x")) == .command("mute-peer p3"))
        #expect(screen.handle(.character("h")) == .command("hide p3"))
        _ = screen.handle(.up)
        #expect(screen.handle(.character("x")) == .command("mute-peer p2"))
    }

    @Test func theInputLineSendsChatOrASlashCommand() {
        var screen = screen()
        _ = screen.handle(.enter)
        #expect(screen.mode == .typing)
        for character in "hi all" { _ = screen.handle(.character(character)) }
        let drawing = screen.draw(columns: 60, rows: 12)
        #expect(drawing.cursor?.row == 11 && drawing.cursor?.column == 8)
        #expect(screen.handle(.enter) == .command("say hi all") && screen.mode == .normal)
        _ = screen.handle(.character("/"))
        for character in "camera next" { _ = screen.handle(.character(character)) }
        #expect(screen.handle(.enter) == .command("camera next"))
    }

    @Test func qAsksOnceBeforeLeaving() {
        var screen = screen()
        #expect(screen.handle(.character("q")) == nil && screen.mode == .confirmingLeave)
        #expect(rows(screen.draw(columns: 80, rows: 12))[10].contains("Leave the call?"))
        #expect(screen.handle(.character("n")) == nil && screen.mode == .normal)
        _ = screen.handle(.character("q"))
        #expect(screen.handle(.enter) == nil && screen.mode == .normal, "Enter is \"any other key\": it stays")
        _ = screen.handle(.character("q"))
        #expect(screen.handle(.character("y")) == .command("leave"))
    }

    @Test func aNarrowHeaderShowsTheMicrophoneBeforeTheRoomAndTheHelpFitsItsBox() {
        var screen = screen()
        screen.header.microphoneMuted = true
        let narrow = rows(screen.draw(columns: 40, rows: 12))[0]
        #expect(narrow.contains("MIC MUTED") && narrow.contains("camera on"), "\(narrow)")
        let wide = rows(screen.draw(columns: 120, rows: 12))[0]
        #expect(wide.contains("standup 4821-7734") && wide.contains("MIC MUTED"), "\(wide)")
        _ = screen.handle(.character("?"))
        let help = rows(screen.draw(columns: 80, rows: 30)).joined(separator: "\n")
        #expect(help.contains("mute them here") && help.contains("words compared"), "\(help)")
    }

    /// Every key the reference lists does what it says rather than fall through to "? shows the
    /// keys" (with someone selected, for the keys that act on them).
    @Test func everyDocumentedKeyIsAKey() {
        for entry in CallScreen.keyReference {
            for key in entry.keys {
                var screen = screen()
                _ = screen.handle(.tab)
                let action = screen.handle(key)
                let acted = action != nil || screen.mode != .normal || screen.hint == nil
                #expect(acted && screen.hint != "? shows the keys", "\(entry.label) (\(key)): \(screen.hint ?? "")")
            }
        }
        var screen = screen()
        _ = screen.handle(.character("z"))
        #expect(screen.hint == "? shows the keys", "a key that is none is told so")
    }

    /// At 80x24 (and narrower) nothing is cut: the words to compare stay whole (the figures and
    /// meter make room), and the keys' line drops whole keys, never `? help` or `q leave`.
    @Test(arguments: [40, 60, 80, 100])
    func aNarrowTerminalDropsWholeThingsNeverCutsThem(columns: Int) {
        var screen = screen()
        screen.others[0].words = ["elderberry", "kettledrum", "marbleized", "sprouting"]
        screen.others[0].muted = true
        screen.others[0].talking = true
        let drawn = rows(screen.draw(columns: columns, rows: 24))
        let bob = drawn[2]
        #expect(bob.contains((columns >= 80 ? "compare: " : "") + "elderberry kettledrum marbleized sprouting") || columns < 60, "\(bob)")
        for mark in ["muted", "talking"] where bob.contains(mark.prefix(2)) {
            #expect(bob.contains(mark), "a mark cut: \(bob)")
        }
        let keys = drawn[23].trimmingCharacters(in: .whitespaces)
        #expect(keys.hasSuffix("? help  q leave") && keys.count <= columns, "\(keys)")
        for key in ["m mic", "v camera", "Tab select", "x mute", "h hide", "c compared", "Enter chat", "i invite"] where keys.contains(key.prefix(3)) {
            #expect(keys.contains(key), "a key cut: \(keys)")
        }
    }

    /// `i`: the links whole, broken only where a part starts, the first one to the clipboard.
    @Test func iShowsTheInvitationWholeAndCopiesTheFirstLink() {
        var screen = screen()
        #expect(screen.handle(.character("i")) == .copy(Self.link))
        let drawn = rows(screen.draw(columns: 60, rows: 24)).map { $0.trimmingCharacters(in: .whitespaces) }
        let start = drawn.firstIndex { $0.hasPrefix("https://") } ?? 0
        #expect(drawn[start] == "https://203.0.113.77:7373/#room=4821-7734&pin=381204", "\(drawn)")
        #expect(drawn[start + 1] == "&fp=k3f72m7qx4abh6tnc2wzp7r5ve", "\(drawn)")
        #expect(CallScreen.breakLink("https://[2001:db8:1234:5678:9abc:def0:1234:5678]:7373/#room=4821-7734", width: 30).allSatisfy { $0.count <= 30 })
        _ = screen.handle(.character("x"))
        #expect(screen.mode == .normal, "any key closes it")
        var joiner = CallScreen(commandsHelp: "")
        #expect(joiner.handle(.character("i")) == nil && joiner.hint?.contains("host") == true)
    }

    @Test func aPasteIsTypedIntoTheInputLineNeverRunAsKeys() {
        var screen = screen()
        #expect(screen.handle(.paste("Notes:\nsee the faq\nq\n")) == nil)
        #expect(screen.mode == .typing && screen.input.line == "Notes: see the faq q ")
        #expect(screen.handle(.enter) == .command("say Notes: see the faq q "))
        _ = screen.handle(.character("q"))
        #expect(screen.handle(.paste("y")) == nil && screen.mode == .normal, "a paste does not answer the leave question")
    }

    @Test func theChatPaneShowsTheNewestLinesWrappedAndScrollsBack() {
        var screen = screen()
        for n in 1...30 { screen.append(.init(time: "12:00", from: "bob", text: "line \(n)", kind: .message)) }
        screen.append(.init(time: "12:01", from: "bob", text: String(repeating: "word ", count: 20), kind: .message))
        let drawn = rows(screen.draw(columns: 50, rows: 14))
        #expect(drawn[11].hasPrefix("word") && drawn.contains { $0.contains("line 30") })
        _ = screen.handle(.pageUp)
        let back = rows(screen.draw(columns: 50, rows: 14))
        #expect(back.contains { $0.contains("line 26") } && !back.contains { $0.contains("line 30") })
    }

    @Test func aSmallTerminalIsToldSoAndVideoGetsRowsOnlyWhenThereIsRoom() {
        let tiny = screen().draw(columns: 30, rows: 8)
        #expect((0..<8).map { tiny.canvas.text(row: $0) }.joined().contains("terminal too small (30x8)"))
        var withVideo = screen()
        withVideo.showsVideo = true
        #expect(withVideo.draw(columns: 80, rows: 40).video?.rows ?? 0 >= 10)
        #expect(withVideo.draw(columns: 80, rows: 12).video == nil)
    }

    @Test func qualityFollowsDelayLossAndJitter() {
        #expect(LinkQuality(roundTrip: .milliseconds(40), lossPercent: 1, jitter: .milliseconds(5)) == .good)
        #expect(LinkQuality(roundTrip: .milliseconds(200), lossPercent: 0, jitter: nil) == .fair)
        #expect(LinkQuality(roundTrip: .milliseconds(40), lossPercent: 15, jitter: nil) == .poor)
        #expect(LinkQuality(roundTrip: nil, lossPercent: nil, jitter: .milliseconds(100)) == .poor)
    }
}

struct CallScreenRedrawTests {
    @Test func closingTheHelpClearsItsBox() {
        var screen = CallScreen(commandsHelp: "mute, unmute")
        var renderer = ScreenRenderer(colors: .none)
        _ = renderer.frame(screen.draw(columns: 80, rows: 24).canvas)
        _ = screen.handle(.character("?"))
        let help = screen.draw(columns: 80, rows: 24).canvas
        _ = renderer.frame(help)
        _ = screen.handle(.character("x"))
        let closed = screen.draw(columns: 80, rows: 24).canvas
        let bytes = renderer.frame(closed)
        let boxRow = (0..<24).first { help.text(row: $0).contains("Keys") }!
        #expect(closed.text(row: boxRow).allSatisfy { $0 == " " })
        #expect(bytes.contains("\u{1B}[\(boxRow + 1);"), "\(bytes.debugDescription)")
    }
}
