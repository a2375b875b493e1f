import Testing
@testable import ConfScreen

struct KeyDecoderTests {
    @Test func lettersControlsAndTheKeysTerminalsSendAsSequences() {
        var decoder = KeyDecoder()
        let bytes = Array("m\t\r\u{7F}\u{03}".utf8) + Array("\u{1B}[A\u{1B}OB\u{1B}[3~\u{1B}[5~\u{1B}[Z\u{1B}[1;5C".utf8)
        #expect(decoder.keys(bytes) == [.character("m"), .tab, .enter, .backspace, .control("c"),
                                        .up, .down, .delete, .pageUp, .backTab, .right])
    }

    @Test func aSequenceOrCharacterSplitAcrossReadsWaitsForTheRest() {
        var decoder = KeyDecoder()
        #expect(decoder.keys(Array("\u{1B}[".utf8)).isEmpty)
        #expect(decoder.keys(Array("D".utf8)) == [.left])
        let e = Array("é".utf8)
        #expect(decoder.keys(e.prefix(1)).isEmpty)
        #expect(decoder.keys(e.suffix(1)) == [.character("é")])
    }

    @Test func aLoneEscapeIsTheEscapeKeyAndUnknownSequencesAreDroppedWhole() {
        var decoder = KeyDecoder()
        #expect(decoder.keys([0x1B]) == [.escape])
        #expect(decoder.keys(Array("\u{1B}[99xq".utf8)) == [.character("q")])
        #expect(decoder.keys(Array("\u{1B}]0;title\u{07}".utf8)).allSatisfy { if case .character = $0 { true } else { $0 == .escape || $0 == .control("g") } })
    }

    @Test func aPasteIsOneKeyWhateverItHoldsAndHoweverItWasSplit() {
        let paste = Array("\u{1B}[200~Notes:\nsee the faq\nq\u{1B}[A\u{1B}[201~m".utf8)
        for cut in 2..<paste.count {  // not after the lone ESC: that is the Escape key (see above)
            var decoder = KeyDecoder()
            let keys = decoder.keys(paste[..<cut]) + decoder.keys(paste[cut...])
            #expect(keys == [.paste("Notes:\nsee the faq\nq\u{1B}[A"), .character("m")], "cut at \(cut)")
        }
    }

    @Test func aPasteWhoseEndNeverCameCanBeEndedAndKeysWorkAgain() {
        var decoder = KeyDecoder()
        #expect(decoder.keys(Array("\u{1B}[200~half a pas".utf8)).isEmpty)
        #expect(decoder.keys(Array("te q".utf8)).isEmpty, "inside a paste, q is text")
        #expect(decoder.endUnfinishedPaste() == .paste("half a paste q"))
        #expect(decoder.endUnfinishedPaste() == nil)
        #expect(decoder.keys(Array("q".utf8)) == [.character("q")])
    }

    @Test func aHugePasteIsCutNotKeptWhole() {
        var decoder = KeyDecoder()
        var keys = decoder.keys(Array("\u{1B}[200~".utf8))
        for _ in 0..<100 { keys += decoder.keys([UInt8](repeating: UInt8(ascii: "a"), count: 1_000)) }
        keys += decoder.keys(Array("\u{1B}[201~x".utf8))
        #expect(keys == [.paste(String(repeating: "a", count: KeyDecoder.longestPaste)), .character("x")])
    }

    @Test func garbageNeverGrowsThePendingBytesWithoutBound() {
        var decoder = KeyDecoder()
        var keys: [Key] = []
        keys += decoder.keys(Array("\u{1B}[".utf8) + Array(repeating: UInt8(ascii: "1"), count: 10_000))
        keys += decoder.keys(Array("x".utf8))
        #expect(keys.last == .character("x"))
        #expect(decoder.keys([0xFF, 0xC3, 0x28]) == [.character("(")])  // invalid UTF-8: dropped, the rest read
    }
}
