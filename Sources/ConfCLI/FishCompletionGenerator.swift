/// The fish completions for a program, generated from its command tree (one level of subcommands).
public enum FishCompletionGenerator {
    public static func script(for program: Program) -> String {
        let name = program.name
        let root = program.root
        var out = """
        # fish completion for \(name). Generated from \(name)'s command tree: do not edit;
        # regenerate with '\(name) completions fish'.
        complete -c \(name) -f

        """
        let subs = root.subcommands.map(\.name).joined(separator: " ")
        for sub in root.subcommands {
            out += "complete -c \(name) -n '__fish_use_subcommand' -a \(sub.name) -d \(quote(sub.abstract))\n"
        }
        for option in root.allOptions(isRoot: true) {
            out += line(name, condition: "__fish_use_subcommand", option, parent: root) + "\n"
        }
        for sub in root.subcommands {
            let condition = "__fish_seen_subcommand_from \(sub.name)"
            for option in sub.allOptions(isRoot: false) {
                out += line(name, condition: condition, option, parent: root) + "\n"
            }
            if let first = sub.arguments.first {
                switch first.completion {
                case .none: break
                case .file: out += "complete -c \(name) -n '\(condition)' -F\n"
                case .directory: out += "complete -c \(name) -n '\(condition)' -a '(__fish_complete_directories)'\n"
                case .choices(let choices):
                    out += "complete -c \(name) -n '\(condition)' -a \(quote(choices.joined(separator: " ")))\n"
                case .subcommands:
                    out += "complete -c \(name) -n '\(condition); and not __fish_seen_subcommand_from \(subs)' -a \(quote(subs))\n"
                case .command(let command):
                    out += "complete -c \(name) -n '\(condition)' -a \(quote("(\(command) 2>/dev/null)"))\n"
                }
            }
        }
        return out
    }

    private static func line(_ name: String, condition: String, _ option: OptionSpec, parent: CommandSpec) -> String {
        var parts = ["complete -c \(name) -n '\(condition)' -l \(option.long)"]
        if let short = option.short { parts.append("-s \(short)") }
        switch (option.takesValue, option.completion) {
        case (false, _): break
        case (true, .file): parts.append("-r -F")
        case (true, .directory): parts.append("-x -a '(__fish_complete_directories)'")
        case (true, .choices(let choices)): parts.append("-x -a \(quote(choices.joined(separator: " ")))")
        case (true, .subcommands): parts.append("-x -a \(quote(parent.subcommands.map(\.name).joined(separator: " ")))")
        case (true, .command(let command)): parts.append("-x -a \(quote("(\(command) 2>/dev/null)"))")
        case (true, .none): parts.append("-x")
        }
        parts.append("-d \(quote(option.help))")
        return parts.joined(separator: " ")
    }

    private static func quote(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }
}
