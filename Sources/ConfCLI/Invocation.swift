/// A parsed command line: which command, with which options and arguments.
public struct Invocation: Sendable {
    /// From the root: ["conf", "join"].
    public var path: [String]
    public var command: CommandSpec
    /// Option values by long name, in the order given; a flag has one empty value per use.
    public var options: [String: [String]]
    /// Positional arguments by their spec's name.
    public var arguments: [String: String]

    public var commandPath: String { path.joined(separator: " ") }

    public func flag(_ long: String) -> Bool { options[long] != nil }

    /// The last value given for `long` on the command line.
    public func value(_ long: String) -> String? { options[long]?.last }

    public func values(_ long: String) -> [String] { options[long] ?? [] }

    public func argument(_ name: String) -> String? { arguments[name] }
}
