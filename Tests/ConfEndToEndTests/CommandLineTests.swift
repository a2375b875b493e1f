import Foundation
import Testing

/// The `conf` binary's handling of bad command lines, environment and config files.
@Suite struct CommandLineTests {
    @Test func unknownOptionExits2WithASuggestion() throws {
        let p = try ConfProcess(["join", "--sever", "x", "1234-5678", "123456"])
        #expect(p.waitForExit() == 2)
        #expect(p.stderr.contains("unknown option '--sever' (did you mean '--server'?)"))
        #expect(p.stderr.contains("Usage: conf join [OPTIONS] ROOM [PIN]"))
    }

    /// With `--json` the first line on stdout is the room or an error, even for a command line
    /// that could not be read: a script's `until [ -s host.jsonl ]` never waits for nothing.
    @Test(arguments: [["host", "--json", "--duraton", "5"], ["host", "--json", "--resolution", "4k"], ["join", "-j", "1234-5678"],
                      ["host", "--json", "--listen", "nope"]])
    func aUsageErrorWithJSONIsAnErrorEventOnStdout(arguments: [String]) throws {
        let p = try ConfProcess(arguments)
        #expect(p.waitForExit() == 2)
        let error = try #require(p.events.first, "stdout: \(p.stdout)")
        #expect(error["type"] as? String == "error" && error["code"] as? String == "usage", "\(error)")
        #expect((error["message"] as? String)?.isEmpty == false && !p.stderr.isEmpty)
        #expect(p.events.count == 1)
    }

    @Test func badValuesExit2NamingTheProblem() throws {
        for (arguments, message) in [
            (["join", "12-34", "123456", "--server", "h:1"], "is not a room id"),
            (["join", "1234-5678", "12345", "--server", "h:1"], "six digits"),
            (["join", "1234-5678", "123456"], "no rendezvous given"),
            (["join", "1234-5678", "123456", "--server", "h:1", "--duration", "-3"], "--duration '-3'"),
            (["host", "--name", "ab"], "too short"),
            (["join", "1234-5678", "123456", "--server", "h:99999"], "port"),
        ] {
            let p = try ConfProcess(arguments)
            #expect(p.waitForExit() == 2, "\(arguments)")
            #expect(p.stderr.contains(message), "\(arguments): \(p.stderr)")
        }
    }

    @Test func environmentAndConfigFileSupplySettings() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("conf"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("conf/config")
        try "# test\nserver = 127.0.0.1:1\n".write(to: config, atomically: true, encoding: .utf8)
        // From the config file: an unreachable server, named in the error.
        let fromFile = try ConfProcess(["join", "1234-5678", "123456"], environment: ["XDG_CONFIG_HOME": dir.path])
        #expect(fromFile.waitForExit() == 6)
        #expect(fromFile.stderr.contains("127.0.0.1:1"))
        #expect(fromFile.stderr.contains("the address is from \(config.path) (server)"), "the error names the file to correct: \(fromFile.stderr)")
        // The environment beats the file.
        let fromEnv = try ConfProcess(["join", "1234-5678", "123456"], environment: ["XDG_CONFIG_HOME": dir.path, "CONF_SERVER": "127.0.0.1:2"])
        #expect(fromEnv.waitForExit() == 6)
        #expect(fromEnv.stderr.contains("127.0.0.1:2") && fromEnv.stderr.contains("the address is from CONF_SERVER"), "\(fromEnv.stderr)")
        // A broken file is a usage error naming file and line.
        try "server = a\nnonsense\n".write(to: config, atomically: true, encoding: .utf8)
        let broken = try ConfProcess(["join", "1234-5678", "123456"], environment: ["XDG_CONFIG_HOME": dir.path])
        #expect(broken.waitForExit() == 2)
        #expect(broken.stderr.contains("config:2"))
    }

    /// STUN and TURN servers from CONF_STUN / CONF_TURN and the config file's stun and turn keys
    /// (several separated by spaces), each checked and named where it came from.
    @Test func stunAndTurnFromTheEnvironmentAndTheConfigFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("conf"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("conf/config")
        try "stun = 127.0.0.1:3478 127.0.0.1:3479\nturn = u:p@127.0.0.1:3478 nope\n".write(to: config, atomically: true, encoding: .utf8)
        let badTURN = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1"], environment: ["XDG_CONFIG_HOME": dir.path])
        #expect(badTURN.waitForExit() == 2)
        #expect(badTURN.stderr.contains("(turn) 'nope'"), "\(badTURN.stderr)")
        let badSTUN = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1"], environment: ["CONF_STUN": "127.0.0.1:3478 bad::x"])
        #expect(badSTUN.waitForExit() == 2)
        #expect(badSTUN.stderr.contains("CONF_STUN 'bad::x'"), "\(badSTUN.stderr)")
        // Good ones pass the checks: the join goes on to the (unreachable) rendezvous.
        try "stun = 127.0.0.1:3478 127.0.0.1:3479\nturn = u:p@127.0.0.1:3478\n".write(to: config, atomically: true, encoding: .utf8)
        let good = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1"],
                                   environment: ["XDG_CONFIG_HOME": dir.path, "CONF_TURN": "a:b@127.0.0.1:5349?transport=tls"])
        #expect(good.waitForExit() == 6, "\(good.stderr)")
    }

    @Test func helpVersionAndCompletions() throws {
        let version = try ConfProcess(["--version"])
        #expect(version.waitForExit() == 0)
        #expect(version.stdout.hasPrefix("conf "))
        let help = try ConfProcess(["help", "host"])
        #expect(help.waitForExit() == 0)
        #expect(help.stdout.contains("--resolution RES"))
        let completions = try ConfProcess(["completions", "fish"])
        #expect(completions.waitForExit() == 0)
        #expect(completions.stdout.contains("complete -c conf"))
        let bad = try ConfProcess(["completions", "tcsh"])
        #expect(bad.waitForExit() == 2)
    }

    @Test func aBusyListenPortIsAClearError() throws {
        let server = try RendezvousProcess()
        let p = try ConfProcess(["host", "--listen", server.endpoint])
        #expect(p.waitForExit() == 1)
        #expect(p.stderr.contains("cannot listen on \(server.endpoint): something else holds port"), "\(p.stderr)")
        #expect(p.stderr.contains("--listen :"))
        let again = try ConfProcess(["rendezvous", "--listen", server.endpoint])
        #expect(again.waitForExit() == 1)
        #expect(again.stderr.hasPrefix("conf rendezvous: cannot listen on \(server.endpoint)"), "the one error, nothing before it: \(again.stderr)")
        #expect(again.stderr.contains("something else holds port") || again.stderr.contains("another conf rendezvous of this user serves port"),
                "\(again.stderr)")
    }

    /// An unreachable rendezvous named on the command line is the one thing said (no sound
    /// warning before it, as without a sound server), with a next step for what was typed.
    @Test func anUnreachableRendezvousIsTheErrorToRead() throws {
        let noSoundServer = ["CONF_AUDIO_SOURCE": "", "CONF_AUDIO_SINK": "", "PULSE_SERVER": "unix:/nonexistent/pulse"]
        let p = try ConfProcess(["join", "1234-5678", "123456", "--server", "127.0.0.1:1"], environment: noSoundServer)
        #expect(p.waitForExit() == 6)
        #expect(p.stderr.hasPrefix("conf: cannot reach the rendezvous at wss://127.0.0.1:1"), "\(p.stderr)")
        #expect(!p.stderr.contains("sound server") && !p.stderr.contains("set --server"), "\(p.stderr)")
        #expect(p.stderr.contains("Check the address with whoever gave it"), "\(p.stderr)")
    }

    /// A --listen address that is not this machine's is a usage error saying so, before anything
    /// is bound (no STUN warning, no "another rendezvous?").
    @Test func aListenAddressNotOnThisMachineIsSaidSo() throws {
        // 192.0.2.0/24 is TEST-NET-1: never an address of this machine.
        for command in [["host", "--no-audio", "--no-video"], ["rendezvous"]] {
            let p = try ConfProcess(command + ["--listen", "192.0.2.1:7373"])
            #expect(p.waitForExit() == 2)
            #expect(p.stderr.contains("192.0.2.1 is not an address of this machine"), "\(p.stderr)")
            #expect(!p.stderr.contains("STUN") && !p.stderr.contains("another"), "\(p.stderr)")
        }
    }

    /// Every option is checked before a device is opened or a room made: a bad --listen is a
    /// usage error even with no sound server, and a missing camera stops conf before the join line.
    @Test func optionsAreCheckedBeforeAnythingStarts() throws {
        let noSoundServer = ["CONF_AUDIO_SOURCE": "pulse", "CONF_AUDIO_SINK": "pulse", "PULSE_SERVER": "unix:/nonexistent/pulse"]
        let badListen = try ConfProcess(["host", "--listen", "bad"], environment: noSoundServer)
        #expect(badListen.waitForExit() == 2)
        #expect(badListen.stderr.contains("--listen 'bad': 'bad' is not an IP address"), "\(badListen.stderr)")
        let rendezvous = try ConfProcess(["rendezvous", "--listen", "example.org:7373"])
        #expect(rendezvous.waitForExit() == 2)

        let noCamera = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--json", "--video-source", "v4l2:/dev/video9"])
        #expect(noCamera.waitForExit() == 9)
        #expect(noCamera.stderr.contains("/dev/video9"))
        #expect(noCamera.events(ofType: "room").isEmpty && !noCamera.stdout.contains("conf join"), "\(noCamera.stdout)")
        #expect(noCamera.events(ofType: "error").first?["code"] as? String == "no-camera")
    }
}
