/// A command line that cannot be run as written. Printed as the problem, the command's usage line
/// and where to read more; the process exits with status 2.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// "conf join", for the usage line and the `--help` hint.
    public var commandPath: String
    public var usage: String

    public init(_ message: String, commandPath: String, usage: String) {
        self.message = message
        self.commandPath = commandPath
        self.usage = usage
    }

    public var description: String {
        "\(commandPath): \(message)\nUsage: \(usage)\nRun '\(commandPath) --help' for more."
    }
}
