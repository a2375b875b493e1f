import Foundation
import Synchronization
import Testing

/// The processes of `conf rendezvous --processes P` pass live connections (and so resume tokens
/// and pins) to each other. Another local user must get none of them and must not stop the
/// rendezvous: the couriers are inherited socketpairs, with no name to bind first or send to.
/// Tried as that user would, with the names the couriers once had (`@conf-rendezvous/PORT/K`)
/// bound before the rendezvous starts, through a restart of its second process.
@Suite(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to act as another user"))
struct CourierTests {
    /// A process of another user (65534, nobody) that binds the old names and reports every
    /// message (and descriptor) it receives on them.
    final class Squatter: @unchecked Sendable {
        final class Output: Sendable {
            private let text = Mutex("")
            var value: String { text.withLock { $0 } }
            func append(_ more: String) { text.withLock { $0 += more } }
        }

        let process = Process()
        let output = Output()

        static let script = """
            import select, socket, sys
            port = int(sys.argv[1])
            sockets = []
            for worker in range(4):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                s.bind("\\0conf-rendezvous/%d/%d" % (port, worker))
                sockets.append(s)
            print("bound", flush=True)
            while True:
                ready, _, _ = select.select(sockets, [], [])
                for s in ready:
                    data, ancillary, _, _ = s.recvmsg(70000, socket.CMSG_SPACE(64))
                    print("received %d bytes, %d control" % (len(data), len(ancillary)), flush=True)
            """

        init(port: UInt16) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", Self.script, String(port)]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            pipe.fileHandleForReading.readabilityHandler = { [output] handle in
                let data = handle.availableData
                if data.isEmpty { handle.readabilityHandler = nil } else { output.append(String(decoding: data, as: UTF8.self)) }
            }
            try process.run()
        }

        deinit { kill(process.processIdentifier, SIGKILL) }
    }

    static func freePort() throws -> UInt16 {
        let probe = try RendezvousProcess()
        let port = probe.port
        probe.process.signal(SIGTERM)
        _ = probe.process.waitForExit()
        return port
    }

    @Test func anotherUserBindsTheOldNamesAndGetsNothing() throws {
        let port = try Self.freePort()
        let squatter = try Squatter(port: port)
        #expect(ConfProcess.waitUntil { squatter.output.value.contains("bound") }, "\(squatter.output.value)")
        // It starts (its first process used to stop here: "another conf rendezvous of this user").
        let server = try RendezvousProcess(["--processes", "2", "--workers", "1", "--max-connections-per-client", "1000"],
                                           listen: "127.0.0.1:\(port)")
        defer { server.process.signal(SIGTERM) }
        let first = server.process.pid

        /// Joins for rooms of both processes, each on a connection that lands anywhere: half of
        /// them cross to the other process, with what they sent.
        func joinEverywhere(_ round: Int) throws -> [String] {
            var tokens: [String] = []
            for index in 0..<8 {
                let room = try server.createRoom()
                let socket = try RawWebSocket(port: server.port)
                socket.sendText(#"{"type":"join","room":"\#(room.room)","pin":"\#(room.pin)","name":"p\#(round)-\#(index)"}"#)
                let answer = try #require(socket.receiveJSON(), "no answer to join \(round)-\(index)")
                #expect(answer["type"] as? String == "joined", "join \(round)-\(index): \(answer)")
                tokens.append(answer["resume_token"] as? String ?? "")
                withExtendedLifetime(socket) {}
            }
            return tokens
        }
        _ = try joinEverywhere(0)
        // The second process dies; the first starts it again, which is when a squatter used to
        // take its name and with it every connection handed to it.
        let children = try Self.children(of: first)
        #expect(children.count == 1, "\(children)")
        for child in children { kill(child, SIGKILL) }
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { server.process.stderr.contains("process 1 was killed by signal 9") },
                "\(server.process.stderr)")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { (try? Self.children(of: first).count) == 1 && (try? Self.children(of: first)) != children })
        let tokens = try joinEverywhere(1)
        // Seats dropped and taken back on new connections, wherever they land.
        for (index, token) in tokens.enumerated() {
            let socket = try RawWebSocket(port: server.port)
            socket.sendText(#"{"type":"resume","token":"\#(token)"}"#)
            #expect(socket.receiveJSON()?["type"] as? String == "joined", "resume \(index)")
        }
        #expect(!server.process.stderr.contains("another conf rendezvous"), "\(server.process.stderr)")
        #expect(squatter.output.value == "bound\n", "the other user received: \(squatter.output.value)")
        // Nothing of the rendezvous's is named: its Unix sockets have no path, abstract or not.
        let named = try Self.namedUnixSockets(of: [first] + Self.children(of: first))
        #expect(named.isEmpty, "\(named)")
    }

    static func children(of pid: pid_t) throws -> [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The paths of the Unix sockets the processes hold (from /proc/net/unix, by inode).
    static func namedUnixSockets(of pids: [pid_t]) throws -> [String] {
        var inodes: Set<String> = []
        for pid in pids {
            let directory = "/proc/\(pid)/fd"
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)"),
                      target.hasPrefix("socket:[") else { continue }
                inodes.insert(String(target.dropFirst(8).dropLast()))
            }
        }
        let table = try String(contentsOfFile: "/proc/net/unix", encoding: .utf8)
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, inodes.contains(String(fields[6])) else { return nil }
            return String(fields[7])
        }
    }
}
