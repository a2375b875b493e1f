/// docs/REFERENCE.md: the man page's content as Markdown, for reading on the web. Generated from
/// the same command tree and `ProgramInfo` as the man page, so the two cannot disagree.
public enum MarkdownReferenceGenerator {
    public static func page(for program: Program) -> String {
        let name = program.name
        let info = program.info
        var out = """
        <!-- Generated from \(name)'s command tree: do not edit; regenerate with the test suite
             (CONF_UPDATE_GENERATED=1 swift test --filter Generated). -->
        # \(name) reference

        \(name) \(info.version): \(info.summary). This page holds what `man \(name)` holds.

        """
        let contents = ["Commands"] + info.sections.map(\.title) + info.lists.map(\.title)
            + ["Options without a command", "Exit status", "JSON events", "Environment", "Files", "Examples"]
        out += "\n" + contents.map { "[\($0)](#\(anchor($0)))" }.joined(separator: " · ") + "\n"
        out += "\n## Description\n\n" + info.description.map(text).joined(separator: "\n\n") + "\n"
        out += "\n## Commands\n"
        for sub in program.root.subcommands {
            out += "\n### `\(name) \(sub.name)`\n\n"
            out += "    \(HelpFormatter.usageLine(for: sub, path: [name, sub.name]))\n\n"
            out += text(sub.abstract.prefix(1).uppercased() + sub.abstract.dropFirst()) + ".\n"
            for paragraph in sub.discussion { out += "\n" + text(paragraph) + "\n" }
            if !sub.arguments.isEmpty {
                out += "\n" + table(["argument", "meaning"], sub.arguments.map { ["`\($0.name)`", text($0.help)] })
            }
            out += "\n" + table(["option", "meaning"], sub.allOptions(isRoot: false).map(optionRow))
        }
        for (title, paragraphs) in info.sections {
            out += "\n## \(title)\n\n" + paragraphs.map(text).joined(separator: "\n\n") + "\n"
        }
        for list in info.lists {
            out += "\n## \(list.title)\n\n\(text(list.intro))\n\n"
            out += table([list.termName, "meaning"], list.entries.map { ["`\(cell($0.term))`", text($0.meaning)] })
        }
        out += "\n## Options without a command\n\n"
        out += table(["option", "meaning"], program.root.allOptions(isRoot: true).map(optionRow))
        out += "\n## Exit status\n\n" + table(["code", "meaning"], info.exitCodes.map { ["\($0.code)", text($0.meaning)] })
        out += "\n## JSON events\n\nWith `--json`, events are printed on standard output, one JSON object a line, each with a "
            + "`type`, `t` (seconds since the command started) and `at` (the time, ISO 8601 in UTC with milliseconds), "
            + "then the members below.\n\n"
        out += table(["`type`", "members", "meaning"], info.events.map { ["`\($0.name)`", $0.fields.isEmpty ? "" : "`\(cell($0.fields))`", text($0.meaning)] })
        out += "\n## Environment\n\n" + table(["variable", "meaning"], info.environment.map { ["`\($0.name)`", text($0.meaning)] })
        out += "\n## Files\n\n" + table(["file", "meaning"], info.files.map { ["`\(cell($0.path))`", text($0.meaning)] })
        out += "\n## Examples\n"
        for sub in program.root.subcommands {
            for example in sub.examples { out += "\n    \(example.command)\n\n\(text(example.explanation))\n" }
        }
        return out
    }

    private static func optionRow(_ option: OptionSpec) -> [String] {
        var label = option.short.map { "`-\($0)`, " } ?? ""
        label += "`--\(option.long)"
        if let value = option.valueName { label += " \(value)" }
        return [label + "`", text(HelpFormatter.optionHelp(option))]
    }

    private static func table(_ header: [String], _ rows: [[String]]) -> String {
        var out = "| " + header.joined(separator: " | ") + " |\n|" + String(repeating: "---|", count: header.count) + "\n"
        for row in rows { out += "| " + row.joined(separator: " | ") + " |\n" }
        return out
    }

    /// GitHub's heading anchor: lower case, spaces to hyphens, other punctuation dropped.
    static func anchor(_ title: String) -> String {
        String(title.lowercased().compactMap { $0 == " " ? "-" : ($0.isLetter || $0.isNumber || $0 == "-" ? $0 : nil) })
    }

    /// Prose in a table cell or paragraph: the characters Markdown would take for markup escaped.
    static func text(_ prose: some StringProtocol) -> String {
        var out = ""
        for c in prose {
            switch c {
            case "|", "*", "_", "<", ">", "[", "]", "`", "\\": out += "\\\(c)"
            case "\n": out += " "
            default: out.append(c)
            }
        }
        return out
    }

    /// Text inside a code span in a table: only the pipe needs escaping there.
    private static func cell(_ code: String) -> String {
        code.reduce(into: "") { out, c in
            if c == "|" { out += "\\|" } else { out.append(c) }
        }
    }
}
