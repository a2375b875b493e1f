import Foundation

/// `conf join` in a pseudo-terminal of a given size (script(1)), for the terminal view's tests;
/// everything it wrote to the terminal is kept in a transcript file, removed with this.
final class TerminalTranscript {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("conf-view-\(UUID().uuidString.prefix(8)).out")
    private let process = Process()

    /// Runs `joinCommand` (a room's `join_command`, `conf join ...`) with `arguments` after it.
    init(joinCommand: String, arguments: String, columns: Int, rows: Int, environment: [String: String] = [:]) throws {
        let join = joinCommand.replacingOccurrences(of: "conf join", with: ConfProcess.executable.path + " join")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "stty cols \(columns) rows \(rows); \(join) \(arguments)", file.path]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["CONF_AUDIO_SOURCE": "silence", "CONF_AUDIO_SINK": "none", "XDG_CONFIG_HOME": "/nonexistent"].merging(environment) { $1 }) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(at: file) }

    /// Its exit status, or nil while it still runs after `timeout`.
    func waitForExit(timeout: Duration = .seconds(20)) -> Int32? {
        guard ConfProcess.waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    var bytes: Data { (try? Data(contentsOf: file)) ?? Data() }
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
