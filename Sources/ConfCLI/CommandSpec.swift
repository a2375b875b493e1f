/// One command of a declarative command tree. From the tree come the parser, `--help`, the
/// bash/zsh/fish completions and the man page, so they cannot disagree.
public struct CommandSpec: Sendable {
    public var name: String
    /// One line, lower case, no final period: "join a room".
    public var abstract: String
    /// Paragraphs for `--help` and the man page.
    public var discussion: [String]
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    public var subcommands: [CommandSpec]
    public var examples: [Example]

    public init(_ name: String, abstract: String, discussion: [String] = [], arguments: [ArgumentSpec] = [],
                options: [OptionSpec] = [], subcommands: [CommandSpec] = [], examples: [Example] = []) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.examples = examples
    }

    public func subcommand(named name: String) -> CommandSpec? { subcommands.first { $0.name == name } }

    /// Its options and its subcommands', depth first, each long name once (the first met): what
    /// the config file, the environment and the reference draw from.
    public var everyOption: [OptionSpec] {
        var seen = Set<String>()
        var options: [OptionSpec] = []
        func visit(_ command: CommandSpec) {
            for option in command.options where seen.insert(option.long).inserted { options.append(option) }
            command.subcommands.forEach(visit)
        }
        visit(self)
        return options
    }

    /// The options this command accepts: its own, then `--help` (and `--version` at the root).
    public func allOptions(isRoot: Bool) -> [OptionSpec] {
        options + [.help] + (isRoot ? [.version] : [])
    }
}

public struct ArgumentSpec: Sendable {
    /// Upper case, as shown in usage: "ROOM".
    public var name: String
    public var help: String
    public var completion: CompletionKind
    public var isOptional: Bool

    public init(_ name: String, help: String, completion: CompletionKind = .none, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.completion = completion
        self.isOptional = isOptional
    }
}

public struct OptionSpec: Sendable {
    /// Without dashes: "server".
    public var long: String
    public var short: Character?
    /// Nil for a flag; else how usage names the value: "ADDR".
    public var valueName: String?
    public var help: String
    public var completion: CompletionKind
    public var isRepeatable: Bool
    /// An environment variable that supplies the value when the option is not given.
    public var environment: String?
    /// Whether the config file may set it (under the option's long name).
    public var isConfigurable: Bool
    /// How `--help` shows the default, when there is one.
    public var defaultDescription: String?

    public init(_ long: String, short: Character? = nil, value valueName: String? = nil, help: String,
                completion: CompletionKind = .none, repeatable: Bool = false, environment: String? = nil,
                configurable: Bool = false, default defaultDescription: String? = nil) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.completion = completion
        self.isRepeatable = repeatable
        self.environment = environment
        self.isConfigurable = configurable
        self.defaultDescription = defaultDescription
    }

    public var takesValue: Bool { valueName != nil }

    public static let help = OptionSpec("help", short: "h", help: "show this help and exit")
    public static let version = OptionSpec("version", help: "print the version and exit")
}

public enum CompletionKind: Sendable, Equatable {
    case none
    case file
    case directory
    case choices([String])
    /// The names of the parent's subcommands (for `help COMMAND`).
    case subcommands
    /// The words this command line prints, one a line, when completing (nothing if it fails):
    /// values only the machine knows, such as its devices.
    case command(String)
}

public struct Example: Sendable {
    public var command: String
    public var explanation: String
    public init(_ command: String, _ explanation: String) {
        self.command = command
        self.explanation = explanation
    }
}

/// What the man page says beyond the commands, and what `--version` prints.
public struct ProgramInfo: Sendable {
    public var version: String
    public var summary: String
    public var description: [String]
    public var exitCodes: [(code: Int32, meaning: String)]
    public var environment: [(name: String, meaning: String)]
    public var files: [(path: String, meaning: String)]
    /// The `--json` events: name, fields, meaning.
    public var events: [(name: String, fields: String, meaning: String)]
    /// Further sections of the man page, after COMMANDS: a title and its paragraphs.
    public var sections: [(title: String, paragraphs: [String])]
    /// Sections that are lists, after those: a title, a sentence before the list, and its
    /// entries (what is typed or pressed, and what it does).
    public var lists: [ReferenceList]

    public init(version: String, summary: String, description: [String], exitCodes: [(code: Int32, meaning: String)],
                environment: [(name: String, meaning: String)], files: [(path: String, meaning: String)],
                events: [(name: String, fields: String, meaning: String)], sections: [(title: String, paragraphs: [String])] = [],
                lists: [ReferenceList] = []) {
        self.sections = sections
        self.lists = lists
        self.version = version
        self.summary = summary
        self.description = description
        self.exitCodes = exitCodes
        self.environment = environment
        self.files = files
        self.events = events
    }
}

/// A list in the reference: the call's commands, the screen's keys, the config file's keys.
public struct ReferenceList: Sendable {
    public var title: String
    public var intro: String
    /// What a table calls its first column: "command", "key".
    public var termName: String
    public var entries: [(term: String, meaning: String)]

    public init(title: String, intro: String, termName: String, entries: [(term: String, meaning: String)]) {
        self.title = title
        self.intro = intro
        self.termName = termName
        self.entries = entries
    }
}

/// The root command and what goes with it.
public struct Program: Sendable {
    public var root: CommandSpec
    public var info: ProgramInfo
    public init(root: CommandSpec, info: ProgramInfo) {
        self.root = root
        self.info = info
    }
    public var name: String { root.name }
}
