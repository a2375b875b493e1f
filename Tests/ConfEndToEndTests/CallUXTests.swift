import Foundation
import Testing

/// Small things a person in a call notices: what conf host prints, stdin commands, what is said
/// when leaving.
@Suite struct CallUXTests {
    @Test func hostPrintsTheListenOnlyJoinCommandToo() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json"])
        let room = try #require(host.waitForEvent("room"))
        let listenPin = try #require(room["listen_pin"] as? String)
        let listenJoin = try #require(room["listen_join_command"] as? String)
        #expect(listenJoin.hasPrefix("conf join \(room["room"] as? String ?? "?") \(listenPin) --server wss://127.0.0.1:"), "\(listenJoin)")
        let listenLink = try #require(room["listen_link"] as? String)
        #expect(listenLink.hasPrefix("https://127.0.0.1:") && listenLink.contains("#room=\(room["room"] as? String ?? "?")&pin=\(listenPin)&fp="))
        // A human line on stderr, its own pipe: it may come a moment after the event on stdout.
        #expect(ConfProcess.waitUntil(timeout: .seconds(5)) { host.stderr.contains("\n  " + listenLink + "\n") }, "\(host.stderr)")
        let listener = try ConfProcess(listenJoin.split(separator: " ").dropFirst().map(String.init) + ["--as", "lee", "--json"])
        #expect(listener.waitForEvent("joined")?["role"] as? String == "listener")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0 && listener.waitForExit() == 0)
    }

    /// One link for everyone: `conf join LINK` joins with what it holds (the rendezvous, the room,
    /// the pin, the certificate), and a link whose `fp` names another certificate is refused as
    /// the wrong certificate (exit 11), before any pin is sent.
    @Test func confJoinTakesTheLinkAndItsCertificate() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--no-video"])
        let room = try #require(host.waitForEvent("room"))
        let link = try #require(room["link"] as? String)
        #expect(link == room["browser_url"] as? String)
        let guest = try ConfProcess(["join", link, "--as", "bob", "--json", "--no-video"])
        #expect(guest.waitForEvent("joined")?["role"] as? String == "publisher", "\(guest.stderr)")
        #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(guest.stderr)")
        guest.signal(SIGTERM)
        #expect(guest.waitForExit() == 0)

        let fp = try #require(link.range(of: "&fp=")).upperBound
        let other = String(link[..<fp]) + String(repeating: "a", count: 26)
        let impostor = try ConfProcess(["join", other, "--as", "eve", "--json", "--no-video"])
        #expect(impostor.waitForExit() == 11, "\(impostor.stderr)")
        #expect(impostor.events(ofType: "error").first?["code"] as? String == "wrong-certificate", "\(impostor.stdout)")
        #expect(host.events(ofType: "peer-joined").count == 1, "only bob joined: \(host.stdout)")

        // A link and a pin, or a link cut before its fragment: usage errors naming the link.
        let both = try ConfProcess(["join", link, "123456"])
        #expect(both.waitForExit() == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        let cut = try ConfProcess(["join", String(link[..<(link.firstIndex(of: "#") ?? link.endIndex)])])
        #expect(cut.waitForExit() == 2 && cut.stderr.contains("copy the whole link"), "\(cut.stderr)")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
    }
}

extension CallUXTests {
    @Test func recordCreatesItsDirectoryLikeMkdirP() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("conf-record-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: base) }
        let nested = base.appendingPathComponent("calls/today").path
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--record", nested, "--duration", "0.3"])
        #expect(host.waitForExit() == 0, "\(host.stderr)")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: nested, isDirectory: &isDirectory) && isDirectory.boolValue)

        let file = base.appendingPathComponent("calls/today/notes.txt").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let blocked = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--record", file + "/more", "--json"])
        #expect(blocked.waitForExit() == 2)
        #expect(blocked.stderr.contains("\(file) is in the way: it is not a directory"), "\(blocked.stderr)")
        #expect(blocked.events(ofType: "room").isEmpty)
    }
}

extension CallUXTests {
    /// A 100 KiB line on stdin is one error, not a message plus a stream of "unknown command" echoes.
    @Test func anOverlongCommandLineIsOneError() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--json"], interactive: true)
        #expect(host.waitForEvent("joined") != nil)
        host.send("say " + String(repeating: "x", count: 100_000))
        host.send("mute")
        #expect(host.waitForEvent("muted") != nil, "the next command still works")
        let errors = host.events(ofType: "error")
        #expect(errors.count == 1, "\(errors.map { ($0["message"] as? String ?? "").prefix(80) })")
        #expect(errors.first?["code"] as? String == "bad-command")
        #expect((errors.first?["message"] as? String)?.contains("longer than 64 KiB") == true)
        #expect(host.events(ofType: "sent").isEmpty)
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
    }
}

extension CallUXTests {
    /// Leaving tears our links down, and the peer closes its side in answer: that is never
    /// reported as the peer going (it raced and did, about half the time). The engine's rule is
    /// tested on the simulated network (CallEngineControlTests); this proves the driver's wiring
    /// for both ways out.
    @Test func leavingNeverReportsThatTheOtherSideLeft() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String).split(separator: " ").dropFirst().map(String.init)
        for run in 0..<4 {
            let guest = try ConfProcess(command + ["--as", "bob", "--json"], interactive: true)
            #expect(guest.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "run \(run)")
            if run % 2 == 0 { guest.send("leave") } else { guest.signal(SIGTERM) }
            #expect(guest.waitForExit() == 0, "run \(run)")
            #expect(guest.events(ofType: "peer-disconnected").isEmpty, "run \(run): \(guest.stdout)")
            #expect(!guest.stderr.contains("lost ann"), "run \(run): \(guest.stderr)")
        }
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
        #expect(host.events(ofType: "peer-disconnected").isEmpty == false, "the host does see bob go each time")
    }
}

extension CallUXTests {
    @Test func talkingLinesNameThePeer() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--audio-source", "tone:440"])
        let link = try #require(host.waitForOutput(containing: "  https://")).trimmingCharacters(in: .whitespaces)
        let guest = try ConfProcess(["join", link, "--as", "bob"])
        // ann is p1 unless bob's join came first (the host joins just after printing its room).
        #expect(guest.waitForOutput(containing: ") started talking", timeout: .seconds(15))?.contains("ann (p") == true, "\(guest.stdout)")
        #expect(host.waitForOutput(containing: "you started talking") != nil)
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0 && guest.waitForExit() == 0)
    }
}

extension CallUXTests {
    /// `--video-view terminal` in a pseudo-terminal (script(1)) 100 columns wide: the peer's four
    /// words stay on screen under its name (the bottom line cut them off), and "Left the room"
    /// is printed on the normal screen after the view ends (it went to the vanishing alternate one).
    @Test func theTerminalViewShowsTheWordsAndTheEnd() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--resolution", "240p"])
        let command = try #require(host.waitForEvent("room")?["join_command"] as? String)
        let viewer = try TerminalTranscript(joinCommand: command, arguments: "--as bob --duration 3 --video-view terminal --ui lines", columns: 100, rows: 30,
                                            environment: ["NO_COLOR": "1"])
        let sas = try #require(host.waitForEvent("peer-connected", timeout: .seconds(15))?["sas"] as? String)
        // The host joins its room just after printing it: under load bob can be first (p1).
        let ann = try #require(host.waitForEvent("joined")?["you"] as? String)
        #expect(viewer.waitForExit() == 0)
        let screen = viewer.text
        #expect(screen.contains("ann (\(ann))  " + sas), "the words under ann's name")
        let normalScreen = try #require(screen.components(separatedBy: "\u{1B}[?1049l").last)
        #expect(normalScreen.contains("Left the room (the duration ran out)."), "\(normalScreen)")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0)
    }
}
