/// The zsh completion function (`_conf`) for a program, generated from its command tree.
/// Handles one level of subcommands, which is what the tree has.
public enum ZshCompletionGenerator {
    public static func script(for program: Program) -> String {
        let name = program.name
        let root = program.root
        var out = """
        #compdef \(name)
        # zsh completion for \(name). Generated from \(name)'s command tree: do not edit;
        # regenerate with '\(name) completions zsh'.

        _\(name)() {
            local context state state_descr line
            typeset -A opt_args
            _arguments -C \\

        """
        for option in root.allOptions(isRoot: true) { out += "        \(spec(option, parent: root)) \\\n" }
        out += """
                '1: :->command' \\
                '*:: :->arguments'
            case $state in
            command)
                local -a commands
                commands=(

        """
        for sub in root.subcommands { out += "            \(quote("\(sub.name):\(sub.abstract)"))\n" }
        out += """
                )
                _describe -t commands '\(name) command' commands
                ;;
            arguments)
                case $words[1] in

        """
        for sub in root.subcommands { out += "            \(sub.name)) _\(name)_\(identifier(sub.name)) ;;\n" }
        out += """
                esac
                ;;
            esac
        }

        """
        for sub in root.subcommands {
            out += "_\(name)_\(identifier(sub.name))() {\n    _arguments \\\n"
            var lines = sub.allOptions(isRoot: false).map { spec($0, parent: root) }
            for (i, argument) in sub.arguments.enumerated() {
                let optional = argument.isOptional ? ":" : ""
                lines.append(quote("\(i + 1)\(optional):\(escape(argument.name)):\(action(argument.completion, parent: root))"))
            }
            out += lines.map { "        \($0)" }.joined(separator: " \\\n") + "\n}\n\n"
        }
        out += "_\(name) \"$@\"\n"
        return out
    }

    private static func spec(_ option: OptionSpec, parent: CommandSpec) -> String {
        let help = "[\(escape(option.help))]"
        let value = option.valueName.map { ":\(escape($0)):\(action(option.completion, parent: parent))" } ?? ""
        let equals = option.takesValue ? "=" : ""
        let repeat_ = option.isRepeatable ? "*" : ""
        if let short = option.short {
            let exclusion = option.isRepeatable ? "" : "(-\(short) --\(option.long))"
            return quote(exclusion) + "\(repeat_){-\(short),--\(option.long)\(equals)}" + quote(help + value)
        }
        return quote("\(repeat_)--\(option.long)\(equals)\(help)\(value)")
    }

    private static func action(_ completion: CompletionKind, parent: CommandSpec) -> String {
        switch completion {
        case .none: " "
        case .file: "_files"
        case .directory: "_files -/"
        case .choices(let choices): "(\(choices.joined(separator: " ")))"
        case .subcommands: "(\(parent.subcommands.map(\.name).joined(separator: " ")))"
        case .command(let line): "{local -a words; words=(${(f)\"$(\(line) 2>/dev/null)\"}); compadd -a words}"
        }
    }

    private static func identifier(_ name: String) -> String { name.replacing("-", with: "_") }

    /// Escapes what `_arguments` treats specially inside a spec: brackets and colons.
    private static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "[" || c == "]" || c == ":" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    private static func quote(_ text: String) -> String {
        text.isEmpty ? "" : "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
