import ConfCore
import ConfRendezvous
import Testing

/// Client frames in, events out (RFC 6455 §5): the RFC's own examples (§5.7), fed whole and a byte
/// at a time, then every way a hostile client can break the protocol, then random bytes.
@Suite struct WebSocketFrameReaderTests {
    /// The masking key of RFC 6455 §5.7's examples.
    static let rfcKey: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    static let hello = Array("Hello".utf8)

    /// A client frame (RFC 6455 §5.2): FIN as given, masked with `key`, its length in the shortest form.
    static func clientFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, key: [UInt8] = rfcKey, reserved: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | reserved | opcode]
        switch payload.count {
        case ..<126: bytes.append(0x80 | UInt8(payload.count))
        case ...0xFFFF: bytes += [0xFE, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [0xFF] + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> (56 - 8 * UInt64($0))) }
        }
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    static func clientFrame(_ opcode: UInt8, _ text: String, fin: Bool = true) -> [UInt8] { clientFrame(opcode, Array(text.utf8), fin: fin) }

    /// Every event the reader gives for `bytes` appended `chunk` bytes at a time, drained after each.
    static func events(_ bytes: [UInt8], chunk: Int = .max, maxMessageBytes: Int = 1 << 20) -> [WebSocketEvent] {
        var reader = WebSocketFrameReader(maxMessageBytes: maxMessageBytes)
        var events: [WebSocketEvent] = []
        var start = 0
        repeat {
            let end = start + min(chunk, bytes.count - start)
            bytes[start..<end].withUnsafeBytes { reader.append($0) }
            start = end
            while let event = reader.next() { events.append(event) }
        } while start < bytes.count
        return events
    }

    /// The events for `bytes` whole and a byte at a time, which must agree.
    static func eventsWholeAndByteByByte(_ bytes: [UInt8], maxMessageBytes: Int = 1 << 20,
                                         sourceLocation: SourceLocation = #_sourceLocation) -> [WebSocketEvent] {
        let whole = events(bytes, maxMessageBytes: maxMessageBytes)
        #expect(events(bytes, chunk: 1, maxMessageBytes: maxMessageBytes) == whole, sourceLocation: sourceLocation)
        return whole
    }

    /// The code of the failure that ends `events`, if one does (a failure is always the last event).
    static func failureCode(_ events: [WebSocketEvent]) -> UInt16? {
        guard case .failure(let code, let message)? = events.last, message.hasSuffix(".") else { return nil }
        return code
    }

    @Test func theRFCsMaskedHelloIsOneTextMessage() {
        let rfc: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(Self.clientFrame(0x1, "Hello") == rfc)  // the helper writes what the RFC writes
        #expect(Self.eventsWholeAndByteByByte(rfc) == [.text("Hello")])
        #expect(Self.eventsWholeAndByteByByte(rfc + rfc) == [.text("Hello"), .text("Hello")])
    }

    @Test func theRFCsUnmaskedHelloIsAProtocolErrorFromAClient() {
        #expect(Self.failureCode(Self.eventsWholeAndByteByByte([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])) == 1002)
    }

    @Test func theRFCsFragmentedHelloIsOneMessage() {
        let first = Self.clientFrame(0x1, "Hel", fin: false), second = Self.clientFrame(0x0, "lo")
        #expect(first.prefix(2) == [0x01, 0x83] && second.prefix(2) == [0x80, 0x82])  // §5.7's headers, masked
        #expect(Self.eventsWholeAndByteByByte(first + second) == [.text("Hello")])
    }

    @Test func theRFCsPingAndPong() {
        let ping: [UInt8] = [0x89, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        let pong: [UInt8] = [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(Self.eventsWholeAndByteByByte(ping + pong) == [.ping(Self.hello), .pong])
        #expect(WebSocketFrame.pong(Self.hello) == [0x8A, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])  // §5.7's unmasked pong
        #expect(Self.eventsWholeAndByteByByte(Self.clientFrame(0x9, [])) == [.ping([])])
    }

    @Test func theRFCs256And65536ByteBinaryMessagesWith16And64BitLengths() {
        let short = (0..<256).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let long = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 * 13) }
        let shortFrame = Self.clientFrame(0x2, short), longFrame = Self.clientFrame(0x2, long)
        #expect(shortFrame.prefix(4) == [0x82, 0xFE, 0x01, 0x00])
        #expect(longFrame.prefix(10) == [0x82, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
        #expect(Self.eventsWholeAndByteByByte(shortFrame + longFrame, maxMessageBytes: 65_536) == [.binary(byteCount: 256), .binary(byteCount: 65_536)])
    }

    @Test func serverFramesUseTheShortestLengthAndAreNeverMasked() {
        #expect(WebSocketFrame.text("Hello") == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(WebSocketFrame.text(String(repeating: "a", count: 125)).prefix(2) == [0x81, 125])
        #expect(WebSocketFrame.text(String(repeating: "a", count: 256)).prefix(4) == [0x81, 0x7E, 0x01, 0x00])
        let long = WebSocketFrame.text(String(repeating: "a", count: 65_536))
        #expect(long.prefix(10) == [0x81, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] && long.count == 65_546)
        #expect(WebSocketFrame.close(code: 1000, reason: "bye") == [0x88, 0x05, 0x03, 0xE8, 0x62, 0x79, 0x65])
        #expect(WebSocketFrame.pong([UInt8](repeating: 1, count: 200)).count == 127)
    }

    @Test func aCloseReasonIsCutTo123BytesAtACharacterBoundary() {
        let euros = String(repeating: "€", count: 50)  // three bytes each: 41 fit in 123
        let frame = WebSocketFrame.close(code: 1001, reason: euros)
        #expect(frame.count == 2 + 2 + 123 && frame[1] == 125)
        #expect(String(validating: frame[4...], as: UTF8.self) == String(repeating: "€", count: 41))
        let shifted = WebSocketFrame.close(code: 1001, reason: "a" + euros)  // 1 + 40 * 3 = 121: the 42nd would cross
        #expect(shifted.count == 4 + 121 && String(validating: shifted[4...], as: UTF8.self) == "a" + String(repeating: "€", count: 40))
        #expect(WebSocketFrame.close(code: 4000, reason: String(repeating: "x", count: 500)).count == 127)
    }

    @Test func controlFramesMayComeBetweenFragments() {
        let bytes = Self.clientFrame(0x1, "Hel", fin: false) + Self.clientFrame(0x9, "a") + Self.clientFrame(0x0, "", fin: false)
            + Self.clientFrame(0xA, []) + Self.clientFrame(0x0, "lo") + Self.clientFrame(0x2, [1, 2], fin: false)
            + Self.clientFrame(0x8, [0x03, 0xE8]) + Self.clientFrame(0x0, [3])
        for chunk in [1, 2, 3, 7, 64, .max] {
            #expect(Self.events(bytes, chunk: chunk) == [.ping([0x61]), .pong, .text("Hello"), .close(code: 1000, reason: "")], "chunk \(chunk)")
        }
    }

    /// A long text in frames of every size, each with its own key, read through reads of other sizes:
    /// unmasking keeps its place in the key across reads, and a character may span fragments (§5.6).
    @Test func textInOddFragmentsThroughOddReadsComesOutWhole() {
        var random = SeededRandom(seed: 5)
        let characters: [Character] = (0..<3_000).map { (i: Int) -> Character in
            if i % 11 == 0 { return "€" }
            if i % 17 == 0 { return "😀" }
            return Character(UnicodeScalar(UInt8(0x20 + i % 90)))
        }
        let text = String(characters)
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        var start = 0
        while start < utf8.count {
            let end = min(utf8.count, start + Int.random(in: 0...40, using: &random))
            let key = (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes += Self.clientFrame(start == 0 ? 0x1 : 0x0, Array(utf8[start..<end]), fin: end == utf8.count, key: key)
            start = end
        }
        for chunk in [1, 5, 8, 13, 4_096, .max] {
            #expect(Self.events(bytes, chunk: chunk) == [.text(text)], "chunk \(chunk)")
        }
    }

    @Test func closeFramesGiveTheirCodeAndReasonAndNothingFollows() {
        #expect(Self.eventsWholeAndByteByByte(Self.clientFrame(0x8, [])) == [.close(code: nil, reason: "")])
        let close = Self.clientFrame(0x8, [0x03, 0xE9] + Array("gone é".utf8))
        #expect(Self.eventsWholeAndByteByByte(close + Self.clientFrame(0x1, "after")) == [.close(code: 1001, reason: "gone é")])
        var reader = WebSocketFrameReader(maxMessageBytes: 100)
        reader.append(close)
        #expect(reader.next() == .close(code: 1001, reason: "gone é"))
        reader.append(Self.clientFrame(0x1, "Hello"))
        #expect(reader.next() == nil && reader.next() == nil && reader.bufferedByteCount == 0)
    }

    @Test func onlyTheCodesAClientMaySendAreAccepted() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
            let events = Self.events(Self.clientFrame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]))
            #expect(events == [.close(code: code, reason: "")], "\(code)")
        }
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 0xFFFF] {
            #expect(Self.failureCode(Self.events(Self.clientFrame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]))) == 1002, "\(code)")
        }
    }

    /// Every rule of §5.2-5.6 and §7.4 broken once, each fed whole and a byte at a time: one failure
    /// with its code, then nothing, however much more comes.
    @Test func eachBrokenRuleFailsWithItsCode() {
        let topBitLength: [UInt8] = [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0] + Self.rfcKey
        let hugeLength: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        var cases: [(String, [UInt8], UInt16)] = [
            ("unmasked", [0x81, 0x05] + Self.hello, 1002),
            ("RSV1", Self.clientFrame(0x1, Self.hello, reserved: 0x40), 1002),
            ("RSV2", Self.clientFrame(0x1, Self.hello, reserved: 0x20), 1002),
            ("RSV3", Self.clientFrame(0x2, Self.hello, reserved: 0x10), 1002),
            ("fragmented ping", Self.clientFrame(0x9, Self.hello, fin: false), 1002),
            ("fragmented close", Self.clientFrame(0x8, [], fin: false), 1002),
            ("126-byte ping", Self.clientFrame(0x9, [UInt8](repeating: 0, count: 126)), 1002),
            ("126-byte pong", Self.clientFrame(0xA, [UInt8](repeating: 0, count: 126)), 1002),
            ("lone continuation", Self.clientFrame(0x0, "lo"), 1002),
            ("text inside text", Self.clientFrame(0x1, "Hel", fin: false) + Self.clientFrame(0x1, "lo"), 1002),
            ("binary inside text", Self.clientFrame(0x1, "Hel", fin: false) + Self.clientFrame(0x2, "lo"), 1002),
            ("continuation after the end", Self.clientFrame(0x1, "Hello") + Self.clientFrame(0x0, "lo"), 1002),
            ("64-bit length with its top bit", topBitLength, 1002),
            ("125 in 16 bits", [0x82, 0xFE, 0x00, 0x7D] + Self.rfcKey + [UInt8](repeating: 0, count: 125), 1002),
            ("0 in 16 bits", [0x82, 0xFE, 0x00, 0x00] + Self.rfcKey, 1002),
            ("65535 in 64 bits", [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + Self.rfcKey, 1002),
            ("close with one byte", Self.clientFrame(0x8, [0x03]), 1002),
            ("1001 bytes in one frame", Self.clientFrame(0x2, [UInt8](repeating: 0, count: 1_001)), 1009),
            ("1001 bytes of text", Self.clientFrame(0x1, String(repeating: "a", count: 1_001)), 1009),
            ("1001 bytes in two frames", Self.clientFrame(0x2, [UInt8](repeating: 0, count: 600), fin: false)
                + Self.clientFrame(0x0, [UInt8](repeating: 0, count: 401)), 1009),
            ("the largest 64-bit length", [0x82, 0xFF, 0x7F] + hugeLength + Self.rfcKey, 1009),
            ("the largest 64-bit length after a fragment", Self.clientFrame(0x1, "Hel", fin: false) + [0x80, 0xFF, 0x7F] + hugeLength, 1009),
            ("an overlong NUL", Self.clientFrame(0x1, [0xC0, 0x80]), 1007),
            ("a surrogate", Self.clientFrame(0x1, [0xED, 0xA0, 0x80]), 1007),
            ("past U+10FFFF", Self.clientFrame(0x1, [0xF4, 0x90, 0x80, 0x80]), 1007),
            ("0xFF", Self.clientFrame(0x1, [0x61, 0xFF]), 1007),
            ("a character cut at the end", Self.clientFrame(0x1, [0xE2, 0x82], fin: false) + Self.clientFrame(0x0, []), 1007),
            ("a bad byte in a later fragment", Self.clientFrame(0x1, "Hel", fin: false) + Self.clientFrame(0x0, [0x6C, 0x80]), 1007),
            ("a close reason not UTF-8", Self.clientFrame(0x8, [0x03, 0xE8, 0xC3, 0x28]), 1007),
        ]
        for opcode: UInt8 in [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            cases.append(("opcode \(opcode)", Self.clientFrame(opcode, Self.hello), 1002))
        }
        for (name, bytes, code) in cases {
            let more = Self.clientFrame(0x1, "Hello") + Self.clientFrame(0x8, [])
            #expect(Self.failureCode(Self.eventsWholeAndByteByByte(bytes + more, maxMessageBytes: 1_000)) == code, "\(name)")
        }
        #expect(Self.events(Self.clientFrame(0x2, [UInt8](repeating: 0, count: 1_000)), maxMessageBytes: 1_000) == [.binary(byteCount: 1_000)])
    }

    /// A message too long fails on its header alone: its payload is never waited for nor held.
    @Test func aMessageTooLongFailsOnItsHeader() {
        var reader = WebSocketFrameReader(maxMessageBytes: 1_000)
        reader.append([0x81, 0xFE, 0x03, 0xE9])  // 1001 bytes of text, no mask key yet
        #expect(Self.failureCode(reader.next().map { [$0] } ?? []) == 1009)
        #expect(reader.bufferedByteCount == 0)
        reader.append(Self.clientFrame(0x1, "Hello"))
        #expect(reader.next() == nil && reader.bufferedByteCount == 0)
    }

    /// Binary payloads are counted, not kept; text is kept once, unmasked: what is held stays
    /// under the message limit plus a header, whatever the stream.
    @Test func whatIsHeldStaysBounded() {
        let limit = 1 << 20
        var reader = WebSocketFrameReader(maxMessageBytes: limit)
        let binary = Self.clientFrame(0x2, [UInt8](repeating: 7, count: limit))
        var largest = 0
        for start in stride(from: 0, to: binary.count, by: 4_096) {
            reader.append(Array(binary[start..<min(start + 4_096, binary.count)]))
            while let event = reader.next() { #expect(event == .binary(byteCount: limit)) }
            largest = max(largest, reader.bufferedByteCount)
        }
        #expect(largest == 0 && reader.bufferedByteCount == 0)

        let text = Self.clientFrame(0x1, String(repeating: "t", count: 100_000), fin: false) + Self.clientFrame(0x0, "!")
        for start in stride(from: 0, to: text.count, by: 1_000) {
            reader.append(Array(text[start..<min(start + 1_000, text.count)]))
            while let event = reader.next() { #expect(event == .text(String(repeating: "t", count: 100_000) + "!")) }
            largest = max(largest, reader.bufferedByteCount)
        }
        #expect(largest >= 99_000 && largest <= 100_001 + 14 && reader.bufferedByteCount == 0)
    }

    /// Thousands of random and mutated streams: none traps, none gives an event after its last,
    /// reading them in any pieces gives the same events, and a failure carries a code §7.4.1 lists.
    @Test func randomBytesNeverTrapAndEndInAFailureOrAWaitForMore() {
        var random = SeededRandom(seed: 6455)
        let valid = Self.clientFrame(0x1, "Hel", fin: false) + Self.clientFrame(0x9, "ping") + Self.clientFrame(0x0, "lo")
            + Self.clientFrame(0x2, [UInt8](repeating: 9, count: 200)) + Self.clientFrame(0x8, [0x03, 0xE8, 0x6F, 0x6B])
        var failures = 0, waiting = 0, closes = 0
        for round in 0..<6_000 {
            var bytes: [UInt8]
            if round % 3 == 0 {
                bytes = valid
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            } else {
                // Random bytes, often shaped like the start of a masked frame so that they get past the first checks.
                bytes = (0..<Int.random(in: 0..<400, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                if round % 3 == 1 && bytes.count >= 2 {
                    bytes[0] = [0x01, 0x81, 0x82, 0x89, 0x8A, 0x88, 0x00, 0x80].randomElement(using: &random)!
                    bytes[1] |= 0x80
                }
            }
            let whole = Self.events(bytes, maxMessageBytes: 256)
            let pieces = Self.events(bytes, chunk: Int.random(in: 1...17, using: &random), maxMessageBytes: 256)
            #expect(pieces == whole)
            for (index, event) in whole.enumerated() {
                switch event {
                case .failure(let code, _):
                    #expect([1002, 1007, 1009].contains(code) && index == whole.count - 1)
                    failures += 1
                case .close:
                    #expect(index == whole.count - 1)
                    closes += 1
                default: break
                }
            }
            if whole.last.map({ if case .failure = $0 { false } else if case .close = $0 { false } else { true } }) ?? true { waiting += 1 }
        }
        #expect(failures > 1_000 && waiting > 100 && closes > 0)
    }
}
