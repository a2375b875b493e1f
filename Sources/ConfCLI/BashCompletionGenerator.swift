/// The bash completion script for a program, generated from its command tree.
public enum BashCompletionGenerator {
    public static func script(for program: Program) -> String {
        let name = program.name
        let function = "_\(name.replacing("-", with: "_"))"
        var commands: [(path: [String], spec: CommandSpec)] = []
        collect(program.root, path: [name], into: &commands)

        var out = """
        # bash completion for \(name). Generated from \(name)'s command tree: do not edit;
        # regenerate with '\(name) completions bash'.
        \(function)() {
            local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
            local command="\(name)" i word
            for ((i = 1; i < COMP_CWORD; i++)); do
                word="${COMP_WORDS[i]}"
                case "$command $word" in

        """
        let nested = commands.filter { $0.path.count > 1 }.map { "\"\($0.path.joined(separator: " "))\"" }
        if !nested.isEmpty {
            out += "            \(nested.joined(separator: "|"))) command=\"$command $word\" ;;\n"
        }
        out += """
                esac
            done
            case "$command" in

        """
        for (path, spec) in commands {
            let isRoot = path.count == 1
            let options = spec.allOptions(isRoot: isRoot)
            out += "    \"\(path.joined(separator: " "))\")\n"
            let valued = options.filter(\.takesValue)
            if !valued.isEmpty {
                out += "        case \"$prev\" in\n"
                for option in valued {
                    let names = (["--\(option.long)"] + (option.short.map { ["-\($0)"] } ?? [])).joined(separator: "|")
                    out += "        \(names)) \(reply(for: option.completion, parent: spec)); return ;;\n"
                }
                out += "        esac\n"
            }
            let words = options.map { "--\($0.long)" }.joined(separator: " ")
            out += "        if [[ \"$cur\" == -* ]]; then\n"
            out += "            COMPREPLY=($(compgen -W \"\(words)\" -- \"$cur\"))\n"
            if !spec.subcommands.isEmpty {
                out += "        else\n"
                out += "            COMPREPLY=($(compgen -W \"\(spec.subcommands.map(\.name).joined(separator: " "))\" -- \"$cur\"))\n"
            } else if let first = spec.arguments.first, first.completion != .none {
                out += "        else\n"
                out += "            \(reply(for: first.completion, parent: program.root))\n"
            }
            out += "        fi\n        ;;\n"
        }
        out += """
            esac
        }
        complete -F \(function) \(name)

        """
        return out
    }

    private static func collect(_ spec: CommandSpec, path: [String], into out: inout [(path: [String], spec: CommandSpec)]) {
        out.append((path, spec))
        for sub in spec.subcommands { collect(sub, path: path + [sub.name], into: &out) }
    }

    private static func reply(for completion: CompletionKind, parent: CommandSpec) -> String {
        switch completion {
        case .none: "COMPREPLY=()"
        case .file: "COMPREPLY=($(compgen -f -- \"$cur\"))"
        case .directory: "COMPREPLY=($(compgen -d -- \"$cur\"))"
        case .choices(let choices): "COMPREPLY=($(compgen -W \"\(choices.joined(separator: " "))\" -- \"$cur\"))"
        case .subcommands: "COMPREPLY=($(compgen -W \"\(parent.subcommands.map(\.name).joined(separator: " "))\" -- \"$cur\"))"
        case .command(let line): "COMPREPLY=($(compgen -W \"$(\(line) 2>/dev/null)\" -- \"$cur\"))"
        }
    }
}
