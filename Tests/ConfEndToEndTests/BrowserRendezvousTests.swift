import Foundation
import Testing

/// What a browser's page may and may not do with a standing rendezvous: a page of another site
/// makes no room (no CORS, JSON only, its Origin refused), every answer keeps the browser from
/// guessing types or running anything, and a browser's WebSocket (with its `Origin`, without
/// `?room=`) joins its room on whichever worker it lands.
@Suite struct BrowserRendezvousTests {
    static func exchange(_ request: String, port: UInt16) throws -> (status: Int, head: String) {
        let (status, text) = try HTTP.response(to: request, on: TCPConnection(port: port))
        return (status, String(text.prefix { $0 != "{" }).lowercased())
    }

    @Test func anotherSitesPageMakesNoRoom() throws {
        let server = try RendezvousProcess()
        // The preflight a JSON POST brings is answered with no CORS header: the browser stops there.
        let preflight = try Self.exchange("OPTIONS /v1/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://example.org\r\n"
                                          + "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n"
                                          + "Connection: close\r\n\r\n", port: server.port)
        #expect(preflight.status == 405 && !preflight.head.contains("access-control-"), "\(preflight.head)")
        func post(_ body: String, type: String, origin: String?) throws -> (status: Int, head: String) {
            try Self.exchange("POST /v1/rooms HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")
                              + "Content-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body, port: server.port)
        }
        let body = #"{"name":"from a page"}"#
        // What a page may send without asking: a text/plain POST. Refused, Origin or not.
        let simple = try post(body, type: "text/plain", origin: "https://example.org")
        #expect(simple.status == 403, "\(simple.head)")
        let plain = try post(body, type: "text/plain", origin: nil)
        #expect(plain.status == 415, "\(plain.head)")
        // The JSON POST a preflight would have let through, were there one.
        let crossSite = try post(body, type: "application/json", origin: "https://example.org")
        #expect(crossSite.status == 403, "\(crossSite.head)")
        for answer in [simple, plain, crossSite] { #expect(!answer.head.contains("access-control-allow-origin"), "\(answer.head)") }
        // conf sends no Origin; the rendezvous's own page is its own origin.
        #expect(try post(body, type: "application/json", origin: nil).status == 201)
        #expect(try post(body, type: "application/json; charset=utf-8", origin: "http://127.0.0.1:\(server.port)").status == 201)
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit() == 0)
    }

    /// Every answer, the page's files, JSON, errors, and those written on the raw connection,
    /// says nosniff and carries a Content-Security-Policy; the 404 that quotes its path too.
    @Test func everyAnswerForbidsSniffingAndScripts() throws {
        let server = try RendezvousProcess()
        let requests = [
            "GET / HTTP/1.1", "GET /call.js HTTP/1.1", "GET /v1/health HTTP/1.1", "GET /v1/metrics HTTP/1.1",
            "GET /%3Cscript%3Ealert(1)%3C/script%3E HTTP/1.1", "POST /v1/rooms HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}",
            "POST /v1/rooms HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 10000000",
        ]
        for request in requests {
            let line = request.hasSuffix("{}") ? request.replacingOccurrences(of: "\r\n\r\n{}", with: "") : request
            let text = line + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" + (request.hasSuffix("{}") ? "{}" : "")
            let answer = try Self.exchange(text, port: server.port)
            #expect(answer.head.contains("x-content-type-options: nosniff"), "\(request): \(answer.head)")
            #expect(answer.head.contains("content-security-policy: default-src 'none'"), "\(request): \(answer.head)")
        }
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit() == 0)
    }

    @Test func aBrowsersWebSocketJoinsOnAnyWorker() throws {
        let server = try RendezvousProcess(["--workers", "2", "--quiet"])
        for index in 0..<6 {
            let room = try server.createRoom()
            let socket = try RawWebSocket(port: server.port, headers: ["Origin: https://example.org"])
            socket.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"page\#(index)"}"#)
            let answer = socket.receiveJSON()
            #expect(answer?["type"] as? String == "joined", "join \(index): \(answer ?? [:])")
        }
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit() == 0)
    }
}
