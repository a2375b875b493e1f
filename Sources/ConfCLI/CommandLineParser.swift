/// Parses argv against a command tree.
///
/// Accepted forms: `--name value`, `--name=value`, `-n value`, `-nvalue`, grouped short flags
/// (`-jq`), and `--` to end options. Subcommands come before their options.
public struct CommandLineParser: Sendable {
    public let program: Program

    public init(_ program: Program) { self.program = program }

    /// `arguments` excludes the program name.
    public func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var command = program.root
        var path = [program.root.name]
        var options: [String: [String]] = [:]
        var positionals: [String] = []
        var onlyPositionals = false
        var index = 0

        func usageError(_ message: String) -> UsageError {
            UsageError(message, commandPath: path.joined(separator: " "), usage: HelpFormatter.usageLine(for: command, path: path))
        }

        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                if !onlyPositionals, positionals.isEmpty, options.isEmpty, !command.subcommands.isEmpty {
                    guard let sub = command.subcommand(named: word) else {
                        let hint = closest(to: word, in: command.subcommands.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
                        throw usageError("unknown command '\(word)'\(hint)")
                    }
                    command = sub
                    path.append(sub.name)
                    continue
                }
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            let all = command.allOptions(isRoot: path.count == 1)
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                guard let option = all.first(where: { $0.long == name }) else {
                    let hint = closest(to: name, in: all.map(\.long)).map { " (did you mean '--\($0)'?)" } ?? ""
                    throw usageError("unknown option '--\(name)'\(hint)")
                }
                if option.takesValue {
                    let value: String
                    if let inline {
                        value = inline
                    } else {
                        guard index < arguments.count else { throw usageError("option '--\(name)' needs a value \(option.valueName!)") }
                        value = arguments[index]
                        index += 1
                    }
                    try add(option, value, to: &options, usageError)
                } else {
                    if inline != nil { throw usageError("option '--\(name)' takes no value") }
                    try add(option, "", to: &options, usageError)
                }
                continue
            }
            // Short options: "-s value", "-svalue", "-jq".
            var letters = Substring(word.dropFirst())
            while let letter = letters.first {
                letters = letters.dropFirst()
                guard let option = all.first(where: { $0.short == letter }) else {
                    let longs = all.filter { $0.short != nil }.map { "-\($0.short!)" }
                    let hint = closest(to: "-\(letter)", in: longs).map { " (did you mean '\($0)'?)" } ?? ""
                    throw usageError("unknown option '-\(letter)'\(hint)")
                }
                if option.takesValue {
                    let value: String
                    if !letters.isEmpty {
                        value = String(letters)
                    } else {
                        guard index < arguments.count else { throw usageError("option '-\(letter)' needs a value \(option.valueName!)") }
                        value = arguments[index]
                        index += 1
                    }
                    try add(option, value, to: &options, usageError)
                    break
                }
                try add(option, "", to: &options, usageError)
            }
        }

        // --help and --version win over everything else that might be wrong.
        if options["help"] != nil || options["version"] != nil {
            return Invocation(path: path, command: command, options: options, arguments: [:])
        }
        if !command.subcommands.isEmpty, positionals.isEmpty, command.arguments.isEmpty {
            throw usageError("missing command: one of \(command.subcommands.map(\.name).joined(separator: ", "))")
        }
        var named: [String: String] = [:]
        for (i, spec) in command.arguments.enumerated() {
            if i < positionals.count {
                named[spec.name] = positionals[i]
            } else if !spec.isOptional {
                throw usageError("missing argument \(spec.name) (\(spec.help))")
            }
        }
        if positionals.count > command.arguments.count {
            throw usageError("unexpected argument '\(positionals[command.arguments.count])'")
        }
        return Invocation(path: path, command: command, options: options, arguments: named)
    }

    private func add(_ option: OptionSpec, _ value: String, to options: inout [String: [String]],
                     _ usageError: (String) -> UsageError) throws(UsageError) {
        if options[option.long] != nil, !option.isRepeatable, option.long != "help" {
            throw usageError("option '--\(option.long)' given twice")
        }
        if case .choices(let choices) = option.completion, !choices.contains(value) {
            throw usageError("'\(value)' is not a valid \(option.valueName ?? option.long) for --\(option.long): use one of \(choices.joined(separator: ", "))")
        }
        options[option.long, default: []].append(value)
    }
}
