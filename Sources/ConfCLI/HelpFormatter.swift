/// `--help` text, generated from the command tree.
public enum HelpFormatter {
    public static let width = 80

    public static func usageLine(for command: CommandSpec, path: [String]) -> String {
        var parts = [path.joined(separator: " ")]
        if !command.subcommands.isEmpty, command.arguments.isEmpty {
            parts.append("COMMAND")
        }
        parts.append("[OPTIONS]")
        for argument in command.arguments {
            parts.append(argument.isOptional ? "[\(argument.name)]" : argument.name)
        }
        return parts.joined(separator: " ")
    }

    public static func help(for command: CommandSpec, path: [String], program: Program) -> String {
        var out = "\(path.joined(separator: " ")) — \(command.abstract)\n\n"
        out += "Usage: \(usageLine(for: command, path: path))\n"
        for paragraph in command.discussion {
            out += "\n" + wrap(paragraph, indent: 0) + "\n"
        }
        if !command.subcommands.isEmpty {
            out += "\nCommands:\n"
            out += table(command.subcommands.map { ($0.name, $0.abstract) })
        }
        if !command.arguments.isEmpty {
            out += "\nArguments:\n"
            out += table(command.arguments.map { ($0.name, $0.help) })
        }
        let options = command.allOptions(isRoot: path.count == 1)
        out += "\nOptions:\n"
        out += table(options.map { (optionLabel($0), optionHelp($0)) })
        if !command.examples.isEmpty {
            out += "\nExamples:\n"
            for example in command.examples {
                out += "  \(example.command)\n" + wrap(example.explanation, indent: 6) + "\n"
            }
        }
        if path.count == 1 {
            out += "\nRun '\(program.name) help COMMAND' for a command's options; 'man \(program.name)' for exit codes and events.\n"
        }
        return out
    }

    /// "-s, --server ADDR" or "    --json".
    public static func optionLabel(_ option: OptionSpec) -> String {
        let short = option.short.map { "-\($0), " } ?? "    "
        let value = option.valueName.map { " \($0)" } ?? ""
        return "\(short)--\(option.long)\(value)"
    }

    /// The help text with the default, the environment variable and repeatability appended.
    public static func optionHelp(_ option: OptionSpec) -> String {
        var text = option.help
        var notes: [String] = []
        if let d = option.defaultDescription { notes.append("default: \(d)") }
        if let e = option.environment { notes.append("env: \(e)") }
        if option.isRepeatable { notes.append("repeatable") }
        if !notes.isEmpty { text += " [\(notes.joined(separator: "; "))]" }
        return text
    }

    private static func table(_ rows: [(String, String)]) -> String {
        let column = min(30, (rows.map(\.0.count).max() ?? 0) + 4)
        var out = ""
        for (label, text) in rows {
            let head = "  " + label
            if head.count + 2 <= column {
                let padded = head + String(repeating: " ", count: column - head.count)
                out += padded + wrap(text, indent: column).dropFirst(column) + "\n"
            } else {
                out += head + "\n" + wrap(text, indent: column) + "\n"
            }
        }
        return out
    }

    /// Word-wraps `text` to `width`, every line indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, indent + line.count + 1 + word.count > width {
                lines.append(pad + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(pad + line)
        return lines.joined(separator: "\n")
    }
}
