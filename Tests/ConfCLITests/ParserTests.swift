import ConfApp
import ConfCLI
import Testing

@Suite struct ParserTests {
    let parser = CommandLineParser(ConfProgram.program)

    @Test func optionFormsAreEquivalent() throws {
        for argv in [
            ["join", "1234-5678", "123456", "--server", "h:1", "--duration", "5"],
            ["join", "--server=h:1", "1234-5678", "-d5", "123456"],
            ["join", "-s", "h:1", "1234-5678", "123456", "-d", "5"],
        ] {
            let invocation = try parser.parse(argv)
            #expect(invocation.path == ["conf", "join"])
            #expect(invocation.value("server") == "h:1")
            #expect(invocation.value("duration") == "5")
            #expect(invocation.argument("ROOM") == "1234-5678" && invocation.argument("PIN") == "123456")
        }
    }

    @Test func groupedShortFlagsAndDoubleDash() throws {
        let invocation = try parser.parse(["join", "-j", "--", "1234-5678", "--weird"])
        #expect(invocation.flag("json"))
        #expect(invocation.argument("PIN") == "--weird")
        let rendezvous = try parser.parse(["rendezvous", "-ql", ":0"])
        #expect(rendezvous.flag("quiet") && rendezvous.value("listen") == ":0")
    }

    @Test func repeatableOptionsCollect() throws {
        let invocation = try parser.parse(["rendezvous", "--stun", "a:1", "--stun=b:2"])
        #expect(invocation.values("stun") == ["a:1", "b:2"])
        #expect(throws: UsageError.self) { try parser.parse(["join", "-s", "a", "-s", "b", "1234-5678", "123456"]) }
    }

    @Test(arguments: [
        (["jion"], "unknown command 'jion' (did you mean 'join'?)"),
        (["join", "--sever", "x"], "unknown option '--sever' (did you mean '--server'?)"),
        (["join", "-x"], "unknown option '-x'"),
        (["join"], "missing argument ROOM"),
        (["join"], "missing argument ROOM"),
        (["join", "1234-5678", "123456", "extra"], "unexpected argument 'extra'"),
        (["join", "1234-5678", "123456", "--server"], "option '--server' needs a value ADDR"),
        (["join", "1234-5678", "123456", "--json=yes"], "option '--json' takes no value"),
        (["host", "--resolution", "1080p"], "'1080p' is not a valid RES for --resolution: use one of 240p, 360p, 480p, 720p"),
        ([], "missing command: one of host, join"),
    ])
    func usageErrorsNameTheProblem(_ argv: [String], _ message: String) {
        do {
            _ = try parser.parse(argv)
            Issue.record("accepted \(argv)")
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
            #expect(error.description.contains("Usage: conf"))
        }
    }

    @Test func helpWinsOverMissingArguments() throws {
        #expect(try parser.parse(["join", "--help"]).flag("help"))
        #expect(try parser.parse(["--version"]).flag("version"))
    }

    @Test func everyCommandHasHelpNamingEachOption() {
        for command in ConfProgram.program.root.subcommands {
            let text = HelpFormatter.help(for: command, path: ["conf", command.name], program: ConfProgram.program)
            #expect(text.contains("Usage: conf \(command.name)"))
            for option in command.options { #expect(text.contains("--\(option.long)"), "\(command.name) --\(option.long)") }
        }
    }
}

@Suite struct SettingsTests {
    let parser = CommandLineParser(ConfProgram.program)
    let keys = ConfProgram.program.configurableKeys

    @Test func flagsBeatEnvironmentBeatConfigFile() throws {
        let config = try ConfigFile.parse("# mine\nserver = file:1\n\n  as=fromfile  \n", path: "c", allowedKeys: keys)
        let bare = try parser.parse(["join", "1234-5678", "123456"])
        let flagged = try parser.parse(["join", "1234-5678", "123456", "--server", "flag:1"])
        let env = ["CONF_SERVER": "env:1"]
        #expect(flagged.setting("server", environment: env, config: config)?.value == "flag:1")
        #expect(bare.setting("server", environment: env, config: config)?.source == .environment("CONF_SERVER"))
        #expect(bare.setting("server", environment: [:], config: config)?.value == "file:1")
        #expect(bare.setting("as", environment: [:], config: config)?.value == "fromfile")
        #expect(bare.setting("server", environment: ["CONF_SERVER": ""], config: ConfigFile()) == nil)
    }

    @Test func configFileProblemsNameTheLine() {
        #expect(throws: ConfigFile.Problem(path: "c", line: 2, message: "expected 'key = value'")) {
            try ConfigFile.parse("server = a\njunk\n", path: "c", allowedKeys: keys)
        }
        do {
            _ = try ConfigFile.parse("sever = a", path: "c", allowedKeys: keys)
            Issue.record("accepted an unknown key")
        } catch {
            #expect(error.message.contains("unknown key 'sever' (did you mean 'server'?)"))
        }
    }
}
