import ConfWire
import Testing

/// The http-01 responder's answers (RFC 8555 section 8.3): the challenge and nothing else, to
/// whatever a connection sends.
struct HTTP01AnswerTests {
    static let challenges = ["LoqXcjzGaQs4rJ4l0y4-1cWDx8Ny4A1yGDP6uAIR2qQ": "LoqXcjzGaQs4rJ4l0y4-1cWDx8Ny4A1yGDP6uAIR2qQ.9jg46WB3rR_AHD-EBXdN7cBkH1WOu0tA3M9fm21mqTI"]

    static func answer(_ request: String) -> String? {
        guard case .answer(let text) = HTTP01Answer.read(Array(request.utf8), challenges: challenges) else { return nil }
        return text
    }

    @Test func theCAsRequestGetsTheKeyAuthorization() throws {
        let text = try #require(Self.answer("GET /.well-known/acme-challenge/LoqXcjzGaQs4rJ4l0y4-1cWDx8Ny4A1yGDP6uAIR2qQ HTTP/1.1\r\nHost: 11.0.0.2\r\nUser-Agent: pebble\r\n\r\n"))
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.contains("Content-Type: text/plain\r\n") && text.contains("X-Content-Type-Options: nosniff"))
        #expect(text.hasSuffix("\r\n\r\nLoqXcjzGaQs4rJ4l0y4-1cWDx8Ny4A1yGDP6uAIR2qQ.9jg46WB3rR_AHD-EBXdN7cBkH1WOu0tA3M9fm21mqTI"))
        #expect(text.contains("Content-Length: 87\r\n"))
        let head = try #require(Self.answer("HEAD /.well-known/acme-challenge/LoqXcjzGaQs4rJ4l0y4-1cWDx8Ny4A1yGDP6uAIR2qQ HTTP/1.1\r\n\r\n"))
        #expect(head.hasSuffix("\r\n\r\n") && head.contains("Content-Length: 87"))
    }

    @Test(arguments: [
        "GET /v1/health HTTP/1.1\r\n\r\n",
        "GET /.well-known/acme-challenge/other HTTP/1.1\r\n\r\n",
        "GET /.well-known/acme-challenge/ HTTP/1.1\r\n\r\n",
        "GET /.well-known/acme-challenge/LoqXcjzGaQs4rJ4l0y4-1cWDx8Ny4A1yGDP6uAIR2qQ/../x HTTP/1.1\r\n\r\n",
        "GET /#room=1234-5678&pin=123456 HTTP/1.1\r\n\r\n",
    ])
    func anythingElseIsNotFound(_ request: String) throws {
        let text = try #require(Self.answer(request))
        #expect(text.hasPrefix("HTTP/1.1 404 Not Found\r\n") && text.hasSuffix("\r\n\r\n"))
    }

    @Test(arguments: ["POST /.well-known/acme-challenge/x HTTP/1.1\r\n\r\n", "GET\r\n\r\n", "\u{16}\u{03}\u{01}\r\n\r\n", "GET / SPDY/3\r\n\r\n"])
    func whatIsNotAGetIsABadRequest(_ request: String) throws {
        #expect(try #require(Self.answer(request)).hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    }

    @Test func aRequestComesInPartsAndAnEndlessOneIsCut() {
        let request = Array("GET /.well-known/acme-challenge/LoqXcjzGaQs4rJ4l0y4-1cWDx8Ny4A1yGDP6uAIR2qQ HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        for length in 0..<(request.count - 1) {
            #expect(HTTP01Answer.read(Array(request.prefix(length)), challenges: Self.challenges) == .incomplete, "\(length)")
        }
        let endless = Array("GET / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: 0x41, count: HTTP01Answer.limit)
        guard case .answer(let text) = HTTP01Answer.read(endless, challenges: Self.challenges) else { Issue.record("no answer"); return }
        #expect(text.hasPrefix("HTTP/1.1 431 "))
    }
}
