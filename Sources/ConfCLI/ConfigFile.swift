/// The optional config file: `key = value` lines, `#` comments, blank lines. Keys are the long
/// names of configurable options.
public struct ConfigFile: Equatable, Sendable {
    public var values: [String: String]

    public init(values: [String: String] = [:]) { self.values = values }

    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var path: String
        public var line: Int
        public var message: String
        public var description: String { "\(path):\(line): \(message)" }

        public init(path: String, line: Int, message: String) {
            self.path = path
            self.line = line
            self.message = message
        }
    }

    /// Parses `text`, accepting only `allowedKeys`.
    public static func parse(_ text: String, path: String, allowedKeys: Set<String>) throws(Problem) -> ConfigFile {
        var values: [String: String] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw Problem(path: path, line: number + 1, message: "expected 'key = value'")
            }
            let key = line[..<equals].trimmingSpaces
            let value = line[line.index(after: equals)...].trimmingSpaces
            guard allowedKeys.contains(key) else {
                let hint = closest(to: key, in: allowedKeys.sorted()).map { " (did you mean '\($0)'?)" } ?? ""
                throw Problem(path: path, line: number + 1,
                              message: "unknown key '\(key)'\(hint); known keys: \(allowedKeys.sorted().joined(separator: ", "))")
            }
            values[key] = value
        }
        return ConfigFile(values: values)
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}

/// Where an option's value came from: flags beat the environment, which beats the config file.
public enum SettingSource: Equatable, Sendable {
    case commandLine
    case environment(String)
    case configFile
}

extension Invocation {
    /// The option's value from the command line, else its environment variable (when set and
    /// non-empty), else the config file.
    public func setting(_ long: String, environment: [String: String], config: ConfigFile) -> (value: String, source: SettingSource)? {
        if let value = value(long) { return (value, .commandLine) }
        guard let spec = command.options.first(where: { $0.long == long }) else { return nil }
        if let variable = spec.environment, let value = environment[variable], !value.isEmpty {
            return (value, .environment(variable))
        }
        if spec.isConfigurable, let value = config.values[long] { return (value, .configFile) }
        return nil
    }
}

extension Program {
    /// Every key the config file may hold.
    public var configurableKeys: Set<String> {
        Set(root.everyOption.filter(\.isConfigurable).map(\.long))
    }
}
