import Foundation

/// A real `conf` process under test: its stdout is collected line by line (JSON events), its
/// stderr as text; waits poll with deadlines, never sleep blindly.
final class ConfProcess: @unchecked Sendable {
    static let executable: URL = {
        if let path = ProcessInfo.processInfo.environment["CONF_BIN"] { return URL(fileURLWithPath: path) }
        // The test bundle sits in the build products directory, beside the `conf` executable.
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("conf").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("conf")
    }()

    let arguments: [String]
    private let process = Process()
    private let output = LockedOutput()

    /// Starts `conf` with `arguments`, an empty HOME and config directory (so no user settings
    /// leak in), and `environment` on top; inside network namespace `namespace` when given.
    /// With `interactive`, stdin is a pipe the test writes commands to with `send(_:)`.
    private var input: FileHandle?

    /// `launcher` runs before conf and execs it, as `prlimit --nofile=1024 --` would.
    init(_ arguments: [String], environment: [String: String] = [:], namespace: String? = nil, interactive: Bool = false,
         launcher: [String] = []) throws {
        self.arguments = arguments
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [Self.executable.path] + arguments
        } else if let namespace {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = ["netns", "exec", namespace, Self.executable.path] + arguments
        } else {
            process.executableURL = Self.executable
            process.arguments = arguments
        }
        process.environment = Self.environment(environment)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if interactive {
            let pipe = Pipe()
            process.standardInput = pipe
            input = pipe.fileHandleForWriting
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        collect(out, isStdout: true)
        collect(err, isStdout: false)
        try process.run()
    }

    /// The environment conf runs in under test: `extra` on top of ours, without what would let a
    /// developer's settings, desktop or sound devices in.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = FileManager.default.temporaryDirectory.path
        env["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("conf-tests-no-config").path
        env["CONF_SERVER"] = nil
        env["CONF_NAME"] = nil
        env["NO_COLOR"] = "1"
        // No UPnP, NAT-PMP or PCP to the machine's real router: tests reach only loopback and the
        // namespaces they make. The reachability tests turn it on inside their own home network.
        env["CONF_PORT_MAPPING"] = "off"
        // A developer's proxy stays out; a test that wants one gives it.
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] { env[name] = nil }
        // No window pops up on a developer's desktop (`--video-view auto`); a test that wants one gives DISPLAY.
        env["DISPLAY"] = nil
        env["WAYLAND_DISPLAY"] = nil
        // No sound devices unless a test asks for them (PulseAudio tests start their own daemon).
        env["CONF_AUDIO_SOURCE"] = "silence"
        env["CONF_AUDIO_SINK"] = "none"
        for (key, value) in extra { env[key] = value }
        return env
    }

    /// Appends what arrives on `pipe` to one of the captured texts; counts the pipe closed at EOF.
    private func collect(_ pipe: Pipe, isStdout: Bool) {
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            output.withLock {
                let text = String(decoding: data, as: UTF8.self)
                if isStdout { $0.stdout += text } else { $0.stderr += text }
                if data.isEmpty { $0.openPipes -= 1 }
            }
        }
    }

    deinit {
        // Whatever the test did, leave no process behind.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Writes one command line to the process's stdin (interactive processes only).
    func send(_ line: String) { input?.write(Data((line + "\n").utf8)) }

    var stdout: String { output.withLock { $0.stdout } }
    var stderr: String { output.withLock { $0.stderr } }
    var pid: Int32 { process.processIdentifier }

    /// Complete stdout lines parsed as JSON objects (non-JSON lines are skipped).
    var events: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func events(ofType type: String) -> [[String: Any]] { events.filter { $0["type"] as? String == type } }

    /// Polls until `condition` holds or `timeout` passes; returns whether it held.
    @discardableResult
    static func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// User + system CPU seconds process `pid` has used (/proc/PID/stat), nil once it is gone.
    static func cpuSeconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let name = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: name)...].split(separator: " ")  // from field 3, the state
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Process `pid`'s resident memory in MiB (/proc/PID/status), nil once it is gone.
    static func residentMiB(of pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kB = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return nil }
        return kB / 1024
    }

    /// The first event of `type` satisfying `where`, waiting for it up to `timeout`.
    func waitForEvent(_ type: String, timeout: Duration = .seconds(10), where match: ([String: Any]) -> Bool = { _ in true })
        -> [String: Any]?
    {
        var found: [String: Any]?
        Self.waitUntil(timeout: timeout) {
            found = events(ofType: type).first(where: match)
            return found != nil
        }
        return found
    }

    /// Waits for the first stdout line containing `text`.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(10)) -> String? {
        var line: String?
        Self.waitUntil(timeout: timeout) {
            line = stdout.split(separator: "\n").first { $0.contains(text) }.map(String.init)
            return line != nil
        }
        return line
    }

    /// The exit status once the process has ended, or nil if it is still running after `timeout`.
    func waitForExit(timeout: Duration = .seconds(10)) -> Int32? {
        guard Self.waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        // The pipes reach end of file once the last byte the process wrote has been taken.
        Self.waitUntil(timeout: .seconds(2)) { output.withLock { $0.openPipes == 0 } }
        return process.terminationStatus
    }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }
}

/// A real `conf rendezvous` on 127.0.0.1 with a free port, plain ws:// unless `tls` (the tests
/// that use it reach it with raw sockets too, on loopback, where a pin crosses no network).
final class RendezvousProcess {
    let process: ConfProcess
    /// What `--server` takes: "ws://127.0.0.1:PORT", or "wss://..." with `tls`.
    let address: String
    /// Where it listens, "127.0.0.1:PORT": what `--listen` takes to start another there.
    let endpoint: String
    /// With `tls`: the fingerprint it printed for its users' config.
    let fingerprint: String?

    /// `listen`: 127.0.0.1:0 for a free port, or a given address (to restart one on the same port).
    init(_ extra: [String] = [], listen: String = "127.0.0.1:0", tls: Bool = false, launcher: [String] = []) throws {
        process = try ConfProcess(["rendezvous", "--listen", listen] + (tls ? [] : ["--no-tls"]) + extra, launcher: launcher)
        guard let line = process.waitForOutput(containing: "listening on") else {
            throw TestFailure("conf rendezvous did not start: \(process.stderr)")
        }
        let listening = String(line.split(separator: " ").last!)
        endpoint = listening.hasPrefix("https://") ? String(listening.dropFirst(8)) : listening
        address = (tls ? "wss://" : "ws://") + endpoint
        // Its own certificate's (not one given with --tls-cert).
        let own = tls && !extra.contains("--tls-cert")
        fingerprint = own ? process.waitForOutput(containing: "fingerprint = ").map { String($0.split(separator: " ").last!) } : nil
    }

    var port: UInt16 { UInt16(endpoint.split(separator: ":").last!)! }

    /// Creates a room over HTTP, as `conf host` would.
    func createRoom(name: String = "standup") throws -> (room: String, pin: String, listenPin: String) {
        let (status, body) = try HTTP.request(port: port, method: "POST", path: "/v1/rooms", body: #"{"name":"\#(name)"}"#)
        guard status == 201, let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let room = json["room"] as? String, let pin = json["pin"] as? String, let listen = json["listen_pin"] as? String
        else { throw TestFailure("room creation failed: \(status) \(body)") }
        return (room, pin, listen)
    }
}

/// The size of a file in bytes; 0 when it does not exist (yet).
func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// stdout and stderr text, appended from pipe handler threads.
final class LockedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (stdout: String, stderr: String, openPipes: Int) = ("", "", 2)

    func withLock<T>(_ body: (inout (stdout: String, stderr: String, openPipes: Int)) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
