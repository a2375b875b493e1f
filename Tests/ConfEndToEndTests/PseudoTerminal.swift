import Foundation

/// `conf` in a pseudo-terminal, its screen read through a real terminal emulator (pyte, driven by
/// Tests/Screen/pty_screen.py): the call screen's tests type keys and read what a person would see.
final class PseudoTerminal {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Screen/pty_screen.py").path
    /// Debian's Python, where python3-pyte is installed (not a python3 earlier on PATH).
    static let python = "/usr/bin/python3"

    static var available: Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import pyte"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    /// What the terminal shows.
    struct Screen {
        var lines: [String]
        var cursor: (column: Int, row: Int)
        var cursorShown: Bool
        var alternate: Bool
        /// The terminal's modes are a shell's again: it echoes and edits lines.
        var cooked: Bool
        var bytes: Int
        var status: Int?
        /// The window title, as an OSC sequence would set it.
        var title: String

        var text: String { lines.joined(separator: "\n") }
        func row(containing text: String) -> Int? { lines.firstIndex { $0.contains(text) } }
    }

    private let process = Process()
    private let input: FileHandle
    private let output: FileHandle
    private var buffered = Data()

    init(_ arguments: [String], columns: Int, rows: Int, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.script, "\(columns)", "\(rows)", ConfProcess.executable.path] + arguments
        // Colour on, as a person's terminal has it (the screen's colours are part of what is tested).
        process.environment = ConfProcess.environment(environment).merging(["NO_COLOR": ""]) { $1 }
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
        try process.run()
    }

    deinit {
        try? input.close()
        if process.isRunning { process.terminate() }
    }

    private func request(_ json: String) -> [String: Any] {
        input.write(Data((json + "\n").utf8))
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffered[..<newline]
                buffered.removeSubrange(...newline)
                return (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? [:]
            }
            let chunk = output.availableData
            if chunk.isEmpty { return [:] }  // the helper is gone
            buffered += chunk
        }
    }

    func type(_ keys: String) {
        let encoded = String(decoding: try! JSONSerialization.data(withJSONObject: ["keys": keys]), as: UTF8.self)
        _ = request(encoded)
    }

    func resize(columns: Int, rows: Int) { _ = request(#"{"resize": [\#(columns), \#(rows)]}"#) }

    func screen() -> Screen {
        let answer = request(#"{"screen": true}"#)
        let cursor = answer["cursor"] as? [Int] ?? [0, 0]
        return Screen(lines: answer["lines"] as? [String] ?? [], cursor: (cursor[0], cursor[1]), cursorShown: answer["cursor_shown"] as? Bool ?? false,
                      alternate: answer["alternate"] as? Bool ?? false,
                      cooked: (answer["echo"] as? Bool ?? false) && (answer["icanon"] as? Bool ?? false),
                      bytes: answer["bytes"] as? Int ?? 0, status: answer["status"] as? Int, title: answer["title"] as? String ?? "")
    }

    /// Polls the screen until `condition` holds (nil after `timeout`).
    func waitForScreen(timeout: Duration = .seconds(15), _ condition: (Screen) -> Bool) -> Screen? {
        var last: Screen?
        let found = ConfProcess.waitUntil(timeout: timeout) {
            last = screen()
            return condition(last!)
        }
        return found ? last : nil
    }

    /// The last screen, for a failure's message.
    var lastText: String { screen().text }

    /// What conf wrote to the terminal since the last call (the last megabyte of it).
    func written() -> String { request(#"{"output": true}"#)["output"] as? String ?? "" }

    /// conf's process id.
    func confProcess() -> pid_t? { (request(#"{"pid": true}"#)["pid"] as? Int).map { pid_t($0) } }

    /// conf's exit status, or nil if it still runs after `timeout`.
    func waitForExit(timeout: Duration = .seconds(10)) -> Int? {
        let seconds = Double(timeout.components.seconds)
        return request(#"{"wait": \#(seconds)}"#)["status"] as? Int
    }
}
