import ConfCLI
import ConfCore
import ConfDriver
import ConfIO
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// The entry point: parses the command line and runs the command. Returns the exit status.
public enum ConfMain {
    /// Whether a command line that could not be parsed asked for JSON events (`--json` or `-j`
    /// before any `--`).
    static func wantsJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains { $0 == "--json" || $0 == "-j" }
    }

    /// The `error` event alone on stdout, for a failure before any reporter exists (its words go
    /// to stderr from the caller).
    private static func reportAsJSON(_ failure: CommandFailure, _ environment: [String: String]) {
        let reporter = EventReporter(json: true, environment: environment, clock: SystemClock(), wallClock: SystemWallClock())
        Console.out(reporter.jsonLine(.error(.failed(code: failure.code, message: failure.message))))
    }

    public static func run(_ arguments: [String]) -> Int32 {
        let environment = Console.environment()
        let program = ConfProgram.program
        let invocation: Invocation
        do {
            invocation = try CommandLineParser(program).parse(arguments)
        } catch {
            // A script that asked for JSON reads its first line for the room or an error.
            if wantsJSON(arguments) { reportAsJSON(CommandFailure(.usage, code: "usage", "\(error.commandPath): \(error.message)"), environment) }
            Console.err(error.description)
            return ExitCode.usage.rawValue
        }
        if invocation.flag("version") {
            Console.out("conf \(ConfProgram.version)" + (BuildInfo.commit.map { " (commit \($0))" } ?? ""))
            return ExitCode.ok.rawValue
        }
        if invocation.flag("help") {
            Console.out(HelpFormatter.help(for: invocation.command, path: invocation.path, program: program))
            return ExitCode.ok.rawValue
        }
        let context: CommandContext
        do {
            context = try CommandContext(invocation: invocation, environment: environment)
        } catch {
            if invocation.flag("json") { reportAsJSON(error, environment) }
            Console.err("conf: \(error.message)")
            return error.exitCode.rawValue
        }
        switch invocation.path.dropFirst().first {
        case "help":
            return help(invocation.argument("COMMAND"), program: program)
        case "completions":
            return completions(invocation.argument("SHELL") ?? "", program: program)
        case "rendezvous":
            return RendezvousCommand(context).run()
        case "host":
            return HostCommand(context).run()
        case "join":
            return JoinCommand(context).run()
        case "devices":
            return DevicesCommand(context).run()
        case "check":
            return CheckCommand(context).run()
        default:
            Console.err("conf: \(invocation.commandPath) is not implemented")
            return ExitCode.failure.rawValue
        }
    }

    static func help(_ name: String?, program: Program) -> Int32 {
        guard let name else {
            Console.out(HelpFormatter.help(for: program.root, path: [program.name], program: program))
            return ExitCode.ok.rawValue
        }
        guard let command = program.root.subcommand(named: name) else {
            let hint = closest(to: name, in: program.root.subcommands.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
            let error = UsageError("unknown command '\(name)'\(hint)", commandPath: "conf help",
                                   usage: HelpFormatter.usageLine(for: ConfProgram.help, path: ["conf", "help"]))
            Console.err(error.description)
            return ExitCode.usage.rawValue
        }
        Console.out(HelpFormatter.help(for: command, path: [program.name, name], program: program))
        return ExitCode.ok.rawValue
    }

    static func completions(_ shell: String, program: Program) -> Int32 {
        switch shell {
        case "bash": Console.out(BashCompletionGenerator.script(for: program), terminator: "")
        case "zsh": Console.out(ZshCompletionGenerator.script(for: program), terminator: "")
        case "fish": Console.out(FishCompletionGenerator.script(for: program), terminator: "")
        default:
            Console.err("conf completions: unknown shell '\(shell)': use bash, zsh or fish")
            return ExitCode.usage.rawValue
        }
        return ExitCode.ok.rawValue
    }
}
