import ConfCore
import ConfRendezvous
import Testing

/// The opening handshake (RFC 6455 §4.2.1) from the server's side: heads that upgrade, heads that
/// are refused and with which status, and hostile heads that must be refused without being echoed.
@Suite struct WebSocketUpgradeTests {
    /// RFC 6455 §1.3's example handshake.
    static let rfcHead = "GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://example.com\r\n"
        + "Sec-WebSocket-Protocol: chat, superchat\r\nSec-WebSocket-Version: 13\r\n\r\n"

    /// A head that upgrades, with `request` as its request line and `extra` header lines after the usual ones.
    static func head(_ request: String = "GET /v1/ws?room=4821-7734 HTTP/1.1", without: [String] = [], adding extra: [String] = []) -> String {
        let usual = ["Host: rv.example:8443", "Upgrade: websocket", "Connection: Upgrade",
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
        let lines = usual.filter { line in !without.contains { line.hasPrefix($0 + ":") } } + extra
        return ([request] + lines).map { $0 + "\r\n" }.joined() + "\r\n"
    }

    static func parse(_ head: String) -> Result<WebSocketUpgrade, WebSocketUpgrade.Refusal> {
        Result { () throws(WebSocketUpgrade.Refusal) in try WebSocketUpgrade(head: Array(head.utf8)) }
    }

    static func status(_ head: String) -> Int? {
        if case .failure(let refusal) = parse(head) { refusal.status } else { nil }
    }

    @Test func theRFCsExampleHandshakeUpgrades() throws {
        let upgrade = try WebSocketUpgrade(head: Array(Self.rfcHead.utf8))
        let fromTheString = try WebSocketUpgrade(head: Self.rfcHead.utf8)
        #expect(upgrade == fromTheString)
        #expect(upgrade.path == "/chat" && upgrade.query == "" && upgrade.forwardedFor == nil)
        #expect(upgrade.key == "dGhlIHNhbXBsZSBub25jZQ==")
    }

    @Test func theHeadEndsAtItsEmptyLineWholeOrByteByByte() {
        let head = Array(Self.rfcHead.utf8)
        #expect(WebSocketUpgrade.headLength(of: head) == .complete(head.count))
        // A client may send its first frame right behind the head: the head still ends where it ends.
        #expect(WebSocketUpgrade.headLength(of: head + [0x81, 0x85, 0x37]) == .complete(head.count))
        for count in 0..<head.count {
            #expect(WebSocketUpgrade.headLength(of: head[..<count]) == .incomplete, "at \(count)")
        }
        #expect(WebSocketUpgrade.headLength(of: Array("GET / HTTP/1.1\nHost: a\n\n".utf8)) == .complete(24))
        #expect(WebSocketUpgrade.headLength(of: Array("GET / HTTP/1.1\r\nHost: a\n\r\n".utf8)) == .complete(26))
        #expect(WebSocketUpgrade.headLength(of: Array("GET / HTTP/1.1\r\nHost: a\r\r\n".utf8)) == .incomplete)
    }

    @Test func aHeadWithoutItsEndIsTooLongAtTheLimitAndAHeadJustFittingIsAccepted() throws {
        let longest = WebSocketUpgrade.longestHead
        let filler = Array(repeating: UInt8(ascii: "a"), count: longest)
        #expect(WebSocketUpgrade.headLength(of: filler[..<(longest - 1)]) == .incomplete)
        #expect(WebSocketUpgrade.headLength(of: filler) == .tooLong)
        #expect(WebSocketUpgrade.headLength(of: filler + Array("\r\n\r\n".utf8)) == .tooLong)

        let padding = longest - Self.head().utf8.count - "X-Pad: \r\n".utf8.count
        let fitting = Self.head(adding: ["X-Pad: " + String(repeating: "p", count: padding)])
        #expect(WebSocketUpgrade.headLength(of: Array(fitting.utf8)) == .complete(longest))
        #expect(try WebSocketUpgrade(head: Array(fitting.utf8)).key == "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(WebSocketUpgrade.headLength(of: Array(Self.head(adding: ["X-Pad: p" + String(repeating: "p", count: padding)]).utf8)) == .tooLong)
    }

    @Test func theResponseIsTheRFCsWithTheAcceptGiven() {
        let expected = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
        #expect(WebSocketUpgrade.response(accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") == Array(expected.utf8))
        #expect(WebSocketUpgrade.acceptGUID == "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
    }

    @Test func theTargetGivesPathAndQueryInOriginAndAbsoluteForm() throws {
        let cases: [(String, String, String)] = [
            ("/v1/ws?room=4821-7734", "/v1/ws", "room=4821-7734"),
            ("/v1/ws", "/v1/ws", ""),
            ("/v1/ws?", "/v1/ws", ""),
            ("/?a=b?c", "/", "a=b?c"),
            ("ws://rv.example:8443/v1/ws?room=4821-7734", "/v1/ws", "room=4821-7734"),
            ("WSS://rv.example/v1/ws", "/v1/ws", ""),
            ("http://rv.example?room=1", "/", "room=1"),
            ("https://[2001:db8::1]:443", "/", ""),
        ]
        for (target, path, query) in cases {
            let upgrade = try WebSocketUpgrade(head: Array(Self.head("GET \(target) HTTP/1.1").utf8))
            #expect(upgrade.path == path && upgrade.query == query, "\(target)")
        }
    }

    @Test func namesAreCaseInsensitiveValuesTrimmedListsSearchedAndBareLineFeedsTolerated() throws {
        let head = "GET /v1/ws HTTP/1.1\nhOsT:rv.example\nUPGRADE: \t h2c, WebSocket \t\nconnection: keep-alive,  UPGRADE\n"
            + "sec-websocket-version:13\nSEC-WEBSOCKET-KEY:   AAAAAAAAAAAAAAAAAAAAAA==\t\nX-Forwarded-For: 192.0.2.1\n"
            + "x-forwarded-for: 198.51.100.2,  203.0.113.3\nOrigin: http://evil.example\n\n"
        let upgrade = try WebSocketUpgrade(head: Array(head.utf8))
        #expect(upgrade.key == "AAAAAAAAAAAAAAAAAAAAAA==")
        #expect(upgrade.forwardedFor == "192.0.2.1, 198.51.100.2,  203.0.113.3")
        // Upgrade and Connection may each come in several headers: their lists join (RFC 9110 §5.3).
        #expect(Self.status(Self.head(without: ["Connection"], adding: ["Connection: keep-alive", "Connection: upgrade"])) == nil)
        #expect(Self.status(Self.head(without: ["Upgrade"], adding: ["Upgrade: h2c", "Upgrade: websocket/13"])) == 426)  // a token, not a prefix
    }

    @Test func eachBrokenRuleIsRefusedWithItsStatus() {
        let cases: [(String, Int, String)] = [
            (Self.head("POST /v1/ws HTTP/1.1"), 405, "Method Not Allowed"),
            (Self.head("get /v1/ws HTTP/1.1"), 405, "Method Not Allowed"),
            (Self.head("GET /v1/ws HTTP/1.0"), 505, "HTTP Version Not Supported"),
            (Self.head("GET /v1/ws HTTP/2.0"), 505, "HTTP Version Not Supported"),
            (Self.head("GET /v1/ws HTTP/1.1 x"), 400, "Bad Request"),
            (Self.head("GET  /v1/ws HTTP/1.1"), 400, "Bad Request"),
            (Self.head("GET /v1/ws http/1.1"), 400, "Bad Request"),
            (Self.head("GET /v1/ws HTTP/11"), 400, "Bad Request"),
            (Self.head("GET /v1/ws"), 400, "Bad Request"),
            (Self.head("GET v1/ws HTTP/1.1"), 400, "Bad Request"),
            (Self.head("GET * HTTP/1.1"), 400, "Bad Request"),
            (Self.head("GET ftp://rv.example/v1/ws HTTP/1.1"), 400, "Bad Request"),
            (Self.head("GET ws:///v1/ws HTTP/1.1"), 400, "Bad Request"),
            (Self.head("GET /v1/ws#frag HTTP/1.1"), 400, "Bad Request"),
            (Self.head("GET /v1/ws\tx HTTP/1.1"), 400, "Bad Request"),
            (Self.head(adding: ["X-A: 1", " folded"]), 400, "Bad Request"),
            (Self.head(adding: ["X-A: 1", "\tfolded"]), 400, "Bad Request"),
            (Self.head(adding: ["NoColonHere"]), 400, "Bad Request"),
            (Self.head(adding: ["X-A : 1"]), 400, "Bad Request"),
            (Self.head(adding: [": 1"]), 400, "Bad Request"),
            (Self.head(adding: ["X(A): 1"]), 400, "Bad Request"),
            (Self.head(without: ["Host"]), 400, "Bad Request"),
            (Self.head(adding: ["Host: other.example"]), 400, "Bad Request"),
            (Self.head(without: ["Upgrade"]), 426, "Upgrade Required"),
            (Self.head(without: ["Upgrade"], adding: ["Upgrade: h2c"]), 426, "Upgrade Required"),
            (Self.head(without: ["Upgrade"], adding: ["Upgrade: websockets"]), 426, "Upgrade Required"),
            (Self.head(without: ["Connection"]), 426, "Upgrade Required"),
            (Self.head(without: ["Connection"], adding: ["Connection: keep-alive"]), 426, "Upgrade Required"),
            (Self.head(without: ["Connection"], adding: ["Connection: upgrades"]), 426, "Upgrade Required"),
            (Self.head(without: ["Sec-WebSocket-Version"]), 426, "Upgrade Required"),
            (Self.head(without: ["Sec-WebSocket-Version"], adding: ["Sec-WebSocket-Version: 8"]), 426, "Upgrade Required"),
            (Self.head(without: ["Sec-WebSocket-Version"], adding: ["Sec-WebSocket-Version: 13, 8"]), 426, "Upgrade Required"),
            (Self.head(adding: ["Sec-WebSocket-Version: 13"]), 426, "Upgrade Required"),
            (Self.head(without: ["Sec-WebSocket-Key"]), 400, "Bad Request"),
            (Self.head(adding: ["Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA=="]), 400, "Bad Request"),
            (Self.head(without: ["Sec-WebSocket-Key"], adding: ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ"]), 400, "Bad Request"),
            (Self.head(without: ["Sec-WebSocket-Key"], adding: ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ="]), 400, "Bad Request"),
            (Self.head(without: ["Sec-WebSocket-Key"], adding: ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==="]), 400, "Bad Request"),
            (Self.head(without: ["Sec-WebSocket-Key"], adding: ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZR=="]), 400, "Bad Request"),  // bits set past the 16th byte
            (Self.head(without: ["Sec-WebSocket-Key"], adding: ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25j!Q=="]), 400, "Bad Request"),
            (Self.head(without: ["Sec-WebSocket-Key"], adding: ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ-_"]), 400, "Bad Request"),
            (Self.head(without: ["Sec-WebSocket-Key"], adding: ["Sec-WebSocket-Key:"]), 400, "Bad Request"),
            ("\r\n" + Self.head(), 400, "Bad Request"),
            (String(Self.head().dropLast(2)), 400, "Bad Request"),  // no empty line: not what headLength gave
        ]
        for (head, status, reason) in cases {
            guard case .failure(let refusal) = Self.parse(head) else { Issue.record("accepted: \(head.debugDescription)"); continue }
            #expect(refusal.status == status && refusal.reason == reason, "\(head.debugDescription): \(refusal)")
            #expect(refusal.message.hasSuffix(".") && refusal.message.utf8.allSatisfy { (0x20...0x7E).contains($0) })
        }
    }

    @Test func bytesOutsidePrintableASCIIAreRefusedAndNeverEchoed() {
        let base = Array(Self.head(adding: ["X-Name: SECRETVALUE"]).utf8)
        let at = base.firstIndex(of: UInt8(ascii: "S"))!  // inside the X-Name value, the S of SECRETVALUE
        for byte: UInt8 in [0x00, 0x01, 0x0B, 0x0C, 0x1B, 0x7F, 0x80, 0xC3, 0xFF, UInt8(ascii: "\r")] {
            var head = base
            head[at + 3] = byte
            guard case .failure(let refusal) = Result(catching: { () throws(WebSocketUpgrade.Refusal) in try WebSocketUpgrade(head: head) }) else {
                Issue.record("byte \(byte) accepted")
                continue
            }
            #expect(refusal.status == 400, "byte \(byte)")
            #expect(!refusal.message.contains("SEC") && !refusal.message.contains("VALUE"))
        }
        // A tab is allowed anywhere a value is.
        #expect(Self.status(Self.head(adding: ["X-Name: a\tb"])) == nil)
    }

    @Test func aRefusalNeverQuotesTheRequest() {
        let marker = "ZQXJ"
        let heads = [Self.head("BREW\(marker) /v1/ws HTTP/1.1"), Self.head("GET /\(marker)#x HTTP/1.1"), Self.head("GET /v1/ws HTTP/9.\(marker.count)"),
                     Self.head(adding: ["\(marker) no colon"]), Self.head(without: ["Upgrade"], adding: ["Upgrade: \(marker)"]),
                     Self.head(without: ["Sec-WebSocket-Version"], adding: ["Sec-WebSocket-Version: \(marker)"]),
                     Self.head(without: ["Sec-WebSocket-Key"], adding: ["Sec-WebSocket-Key: \(marker)"])]
        for head in heads {
            guard case .failure(let refusal) = Self.parse(head) else { Issue.record("accepted: \(head.debugDescription)"); continue }
            #expect(!refusal.message.contains(marker) && !refusal.reason.contains(marker))
        }
    }

    /// Thousands of mutated and random heads: none traps, each either upgrades or is refused with a
    /// known status, and every refusal speaks plain ASCII.
    @Test func randomHeadsNeverTrapAndEndInAnUpgradeOrAKnownRefusal() {
        var random = SeededRandom(seed: 6455)
        let base = Array(Self.head(adding: ["X-Forwarded-For: 192.0.2.1"]).utf8)
        let alphabet = Array("GET /:\r\n ,=-?wsHTTP/1.13Upgrade".utf8)
        var upgraded = 0, refused: [Int: Int] = [:]
        for round in 0..<5_000 {
            var head: [UInt8]
            if round % 2 == 0 {
                head = base
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let at = Int.random(in: 0..<head.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: head[at] = UInt8.random(in: 0...255, using: &random)
                    case 1: head.remove(at: at)
                    default: head.insert(alphabet.randomElement(using: &random)!, at: at)
                    }
                }
            } else {
                head = (0..<Int.random(in: 0..<200, using: &random)).map { _ in
                    Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
                }
            }
            let length = WebSocketUpgrade.headLength(of: head)
            if case .complete(let n) = length { #expect(n >= 2 && n <= head.count) }
            let parsed = Result { () throws(WebSocketUpgrade.Refusal) in try WebSocketUpgrade(head: head) }
            switch parsed {
            case .success(let upgrade):
                upgraded += 1
                #expect(upgrade.key.utf8.count == 24 && upgrade.path.hasPrefix("/"))
            case .failure(let refusal):
                refused[refusal.status, default: 0] += 1
                #expect([400, 405, 426, 505].contains(refusal.status))
                #expect(refusal.message.utf8.allSatisfy { (0x20...0x7E).contains($0) })
            }
        }
        #expect(upgraded > 0 && refused[400, default: 0] > 0 && refused[426, default: 0] > 0)
    }
}
