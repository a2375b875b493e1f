import Foundation
import Testing

/// `conf rendezvous --workers N`: connections land on any worker (SO_REUSEPORT) and are handed to
/// the one that holds their room, so that every room lives, with all its connections, on one.
@Suite struct RendezvousWorkersTests {
    /// Each worker's value of `metric` on the page.
    static func perWorker(_ metric: String, in page: String) -> [Int] {
        page.split(separator: "\n").filter { $0.hasPrefix(metric + "{worker=") }.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
    }

    /// Three workers in one process, or one in each of three processes (connections for another
    /// process's room cross as descriptors over a Unix socket).
    @Test(arguments: [["--workers", "3"], ["--workers", "1", "--processes", "3"]])
    func everyRoomLivesOnOneWorkerWithAllItsConnections(_ layout: [String]) throws {
        let server = try RendezvousProcess(layout)
        let rooms = try (0..<6).map { _ in try server.createRoom() }
        var calls: [ConfProcess] = []
        for room in rooms.prefix(2) {
            calls += try ["ann", "bob", "cy", "dee"].map { name in
                try ConfProcess(["join", room.room, room.pin, "--server", server.address, "--as", name, "--json", "--no-sounds"])
            }
        }
        for call in calls {
            #expect(ConfProcess.waitUntil(timeout: .seconds(30)) { call.events(ofType: "peer-connected").count >= 3 }, "\(call.stdout)")
        }
        // Per worker: whole rooms of four (every connection of a room where its room is), eight in all;
        // the six rooms over the three workers.
        var page = ""
        let settled = ConfProcess.waitUntil(timeout: .seconds(5)) {
            page = (try? HTTP.request(port: server.port, method: "GET", path: "/v1/metrics").1) ?? ""
            let seated = Self.perWorker("conf_rendezvous_participants", in: page)
            return seated.count == 3 && seated.reduce(0, +) == 8 && Self.perWorker("conf_rendezvous_rooms", in: page).reduce(0, +) == 6
        }
        #expect(settled, "\(page)")
        #expect(Self.perWorker("conf_rendezvous_participants", in: page).allSatisfy { $0 % 4 == 0 }, "\(page)")
        #expect(Self.perWorker("conf_rendezvous_relays_total", in: page).reduce(0, +) > 0)
        for call in calls { call.signal(SIGTERM) }
        for call in calls { #expect(call.waitForExit() == 0) }
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit() == 0)
        // Every process has let go of the port: a new rendezvous may take it.
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { (try? TCPConnection(port: server.port)) == nil })
    }

    /// The workers of a process share its descriptors: all of one room's connections go to its
    /// worker, which may hold more than half of them (a fixed half each refused the rest while
    /// the other worker held none).
    @Test func oneWorkerMayHoldMostOfTheProcesssConnections() throws {
        // A hard limit of 400: 144 connections for the two workers together (256 kept in reserve).
        let server = try RendezvousProcess(["--workers", "2", "--max-connections-per-client", "1000"],
                                           launcher: ["/usr/bin/prlimit", "--nofile=400:400", "--"])
        let room = try server.createRoom()
        var sockets: [RawWebSocket] = []
        for index in 0..<110 {
            do {
                sockets.append(try RawWebSocket(port: server.port, room: room.room))
            } catch {
                Issue.record("WebSocket \(index + 1) for the room: \(error)")
                break
            }
        }
        #expect(sockets.count == 110)
        // Past the budget the room's worker refuses, as one worker would.
        let refused = ConfProcess.waitUntil(timeout: .seconds(10)) {
            (try? (0..<40).map { _ in try RawWebSocket(port: server.port, room: room.room) }) == nil
        }
        #expect(refused, "more than the process's 144 connections were taken")
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit() == 0)
    }

    /// A worker cannot read an encrypted request line: TLS takes one worker by default, and asking
    /// for more says what to do instead.
    @Test func tlsServesWithOneWorkerAndRefusesMore() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-workers-tls-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, key) = try TLSTests.makeCertificate(in: dir)
        let refused = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--workers", "2", "--tls-cert", cert, "--tls-key", key])
        #expect(refused.waitForExit() == 2)
        #expect(refused.stderr.contains("--workers 2 with TLS") && refused.stderr.contains("--no-tls"), "\(refused.stderr)")
        // Its own certificate is TLS too: several workers need --no-tls behind a TLS proxy.
        let own = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--processes", "2"])
        #expect(own.waitForExit() == 2 && own.stderr.contains("--processes 2 with TLS"), "\(own.stderr)")
        let single = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key])
        #expect(single.waitForOutput(containing: "listening on https://") != nil, "\(single.stderr)")
        #expect(!single.stderr.contains("workers share the port"))
        single.signal(SIGTERM)
        #expect(single.waitForExit() == 0)
    }
}

/// A client that opens `/v1/ws` without `?room=` (the form any simple client writes) lands on any
/// worker; its `join` or `resume` for a room another worker or process holds is handed over with
/// the connection, and the client sees only its answer. Before, a join was refused with
/// `wrong-instance` whenever it landed elsewhere (30 of 40 with `--processes 2`).
@Suite struct RendezvousHandoverTests {
    @Test(arguments: [["--workers", "3"], ["--workers", "1", "--processes", "3"], ["--workers", "2", "--processes", "2"]])
    func joinsAndResumesOverPlainWebSocketsReachTheirRoomsWorker(_ layout: [String]) throws {
        let server = try RendezvousProcess(layout + ["--max-connections-per-client", "1000", "--quiet"])
        let rooms = try (0..<8).map { _ in try server.createRoom() }
        var seated: [(socket: RawWebSocket, room: String, token: String)] = []
        for (index, room) in rooms.enumerated() {
            for seat in 0..<3 {
                // The third seat's join comes in one write with the handshake, as a client may send it.
                let join = #"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"p\#(index)-\#(seat)"}"#
                let socket = try RawWebSocket(port: server.port, pipelined: seat == 2 ? join : nil)
                if seat != 2 { socket.sendText(join) }
                let answer = try #require(socket.receiveJSON(), "no answer to join \(index)-\(seat)")
                #expect(answer["type"] as? String == "joined", "join \(index)-\(seat): \(answer)")
                #expect(answer["room"] as? String == room.room)
                #expect((answer["peers"] as? [Any])?.count == seat, "the room's earlier seats are in it: \(answer)")
                seated.append((socket, room.room, try #require(answer["resume_token"] as? String)))
            }
        }
        // Every other seat's connection drops and comes back on a new plain connection, wherever it lands.
        var resumed: [RawWebSocket] = []
        for (index, seat) in seated.enumerated() where index % 2 == 0 {
            shutdown(seat.socket.connection.fd, Int32(SHUT_RDWR))
            let socket = try RawWebSocket(port: server.port)
            socket.sendText(#"{"type":"resume","token":"\#(seat.token)"}"#)
            let answer = try #require(socket.receiveJSON(), "no answer to resume \(index)")
            #expect(answer["type"] as? String == "joined" && answer["room"] as? String == seat.room, "resume \(index): \(answer)")
            resumed.append(socket)
        }
        // Every room with its three seats, whole, on one worker.
        var page = ""
        let settled = ConfProcess.waitUntil(timeout: .seconds(5)) {
            page = (try? HTTP.request(port: server.port, method: "GET", path: "/v1/metrics").1) ?? ""
            let participants = RendezvousWorkersTests.perWorker("conf_rendezvous_participants", in: page)
            return participants.reduce(0, +) == 24 && participants.allSatisfy { $0 % 3 == 0 }
        }
        #expect(settled, "\(page)")
        let refused = page.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("wrong-instance") }
        #expect(refused.allSatisfy { $0.hasSuffix(" 0") }, "\(refused)")
        withExtendedLifetime((seated, resumed)) {}
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit() == 0)
    }

    /// A WebSocket libsoup serves (at a path under /v1/ws/) cannot be handed over: a join for a
    /// room another worker holds is refused with `wrong-instance` and closed, never left hanging.
    @Test func aWebSocketThatCannotBeHandedOverIsRefusedAsMisrouted() throws {
        let server = try RendezvousProcess(["--workers", "2", "--max-connections-per-client", "1000", "--quiet"])
        var answers: [String] = []
        for index in 0..<16 {
            let room = try server.createRoom()
            let socket = try RawWebSocket(port: server.port, path: "/v1/ws/x")
            socket.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"p\#(index)"}"#)
            let answer = try #require(socket.receiveJSON(), "no answer to join \(index)")
            let kind = answer["type"] as? String == "joined" ? "joined" : answer["code"] as? String ?? "\(answer)"
            answers.append(kind)
            if kind == "wrong-instance" { #expect(socket.receiveClose() == 1000, "join \(index)") }
        }
        #expect(answers.allSatisfy { $0 == "joined" || $0 == "wrong-instance" }, "\(answers)")
        #expect(answers.contains("wrong-instance") && answers.contains("joined"), "16 joins over two workers: \(answers)")
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit() == 0)
    }
}
