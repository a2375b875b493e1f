import Foundation
import Testing

/// What a browser's page needs of a standing rendezvous (issue 37): another site's page may make
/// rooms (CORS, with the preflight a JSON POST brings), and a browser's WebSocket (with its
/// `Origin`, without `?room=`) joins its room on whichever worker it lands.
@Suite struct BrowserRendezvousTests {
    static func exchange(_ request: String, port: UInt16) throws -> (status: Int, head: String) {
        let (status, text) = try HTTP.response(to: request, on: TCPConnection(port: port))
        return (status, String(text.prefix { $0 != "{" }).lowercased())
    }

    @Test func anotherSitesPageMayMakeRooms() throws {
        let server = try RendezvousProcess()
        let preflight = try Self.exchange("OPTIONS /v1/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://example.org\r\n"
                                          + "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n"
                                          + "Connection: close\r\n\r\n", port: server.port)
        #expect(preflight.status == 204, "\(preflight.head)")
        for header in ["access-control-allow-origin: *", "access-control-allow-methods: post", "access-control-allow-headers: content-type"] {
            #expect(preflight.head.contains(header), "\(header) in \(preflight.head)")
        }
        func post(_ body: String) throws -> (status: Int, head: String) {
            try Self.exchange("POST /v1/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://example.org\r\nContent-Type: application/json\r\n"
                              + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body, port: server.port)
        }
        let created = try post(#"{"name":"from a page"}"#)
        #expect(created.status == 201 && created.head.contains("access-control-allow-origin: *"), "\(created.head)")
        // An error is readable by the page too, so that it can say why.
        let refused = try post("{nope")
        #expect(refused.status == 400 && refused.head.contains("access-control-allow-origin: *"), "\(refused.head)")
        // Even a body refused before it is read (413, answered on the raw connection).
        let huge = try Self.exchange("POST /v1/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://example.org\r\n"
                                     + "Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n", port: server.port)
        #expect(huge.status == 413 && huge.head.contains("access-control-allow-origin: *"), "\(huge.head)")
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
