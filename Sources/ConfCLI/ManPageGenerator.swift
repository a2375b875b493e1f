/// The man page (roff, section 1), generated from the command tree and `ProgramInfo`.
public enum ManPageGenerator {
    public static func page(for program: Program) -> String {
        let name = program.name
        let info = program.info
        let root = program.root
        var out = """
        .\\" Generated from \(name)'s command tree: do not edit; regenerate with the test suite
        .\\" (CONF_UPDATE_GENERATED=1 swift test --filter Generated).
        .TH \(name.uppercased()) 1 "" "\(name) \(info.version)" "User Commands"
        .SH NAME
        \(name) \\- \(escape(info.summary))
        .SH SYNOPSIS

        """
        for sub in root.subcommands {
            out += ".B \(escape("\(name) \(sub.name)"))\n"
            out += escape(HelpFormatter.usageLine(for: sub, path: [name, sub.name]).split(separator: " ").dropFirst(2).joined(separator: " ")) + "\n.br\n"
        }
        out += ".SH DESCRIPTION\n"
        for paragraph in info.description { out += escape(paragraph) + "\n.PP\n" }
        out += ".SH COMMANDS\n"
        for sub in root.subcommands {
            out += ".SS \"\(escape(HelpFormatter.usageLine(for: sub, path: [name, sub.name])))\"\n"
            out += escape(capitalized(sub.abstract)) + ".\n"
            for paragraph in sub.discussion { out += ".PP\n" + escape(paragraph) + "\n" }
            for argument in sub.arguments {
                out += ".TP\n.I \(escape(argument.name))\n\(escape(argument.help))\n"
            }
            for option in sub.allOptions(isRoot: false) { out += optionEntry(option) }
        }
        for (title, paragraphs) in info.sections {
            out += ".SH \(escape(title.uppercased()))\n" + paragraphs.map(escape).joined(separator: "\n.PP\n") + "\n"
        }
        for list in info.lists {
            out += ".SH \(escape(list.title.uppercased()))\n\(escape(list.intro))\n"
            for (term, meaning) in list.entries { out += ".TP\n.B \(escape(term))\n\(escape(meaning))\n" }
        }
        out += ".SH OPTIONS\nWithout a command:\n"
        for option in root.allOptions(isRoot: true) { out += optionEntry(option) }
        out += ".SH EXIT STATUS\n"
        for (code, meaning) in info.exitCodes { out += ".TP\n.B \(code)\n\(escape(meaning))\n" }
        out += ".SH JSON EVENTS\nWith \\fB\\-\\-json\\fR, events are printed on standard output, one JSON object a line, each with a \\fBtype\\fR, \\fBt\\fR (seconds since the command started) and \\fBat\\fR (the time, ISO 8601 in UTC with milliseconds), then the members below:\n"
        for (event, fields, meaning) in info.events {
            out += ".TP\n.B \(escape(event))\n\(escape(fields.isEmpty ? meaning : "{\(fields)}: \(meaning)"))\n"
        }
        out += ".SH ENVIRONMENT\n"
        for (variable, meaning) in info.environment { out += ".TP\n.B \(escape(variable))\n\(escape(meaning))\n" }
        out += ".SH FILES\n"
        for (path, meaning) in info.files { out += ".TP\n.I \(escape(path))\n\(escape(meaning))\n" }
        out += ".SH EXAMPLES\n"
        for sub in root.subcommands {
            for example in sub.examples {
                out += ".TP\n.B \(escape(example.command))\n\(escape(example.explanation))\n"
            }
        }
        return out
    }

    private static func optionEntry(_ option: OptionSpec) -> String {
        var head = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
        head += "\\fB\(escape("--" + option.long))\\fR"
        if let value = option.valueName { head += " \\fI\(escape(value))\\fR" }
        return ".TP\n\(head)\n\(escape(HelpFormatter.optionHelp(option)))\n"
    }

    private static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    /// Escapes roff: backslashes, hyphens (so they print as ASCII minus), and a leading dot or quote.
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(c)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
