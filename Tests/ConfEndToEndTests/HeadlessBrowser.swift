import Foundation
import Synchronization

/// Debian's Chromium or Firefox ESR, headless, with its fake camera (a moving test picture) and
/// fake microphone (beeps), opening one URL in a profile of its own. What the call page shows
/// arrives as its `conf-page {json}` console lines (Chromium writes them to stderr, Firefox to
/// stdout); what the page holds and what a person would click go through the browser's own
/// automation (`evaluate`): the DevTools protocol for Chromium, WebDriver BiDi for Firefox.
final class HeadlessBrowser: @unchecked Sendable {
    enum Kind { case chromium, firefox }

    static let path = "/usr/bin/chromium"
    static let firefoxPath = "/usr/bin/firefox-esr"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }
    static var firefoxAvailable: Bool { FileManager.default.isExecutableFile(atPath: firefoxPath) }

    private let process = Process()
    private let profile: URL
    private let kind: Kind
    private let log = Mutex<String>("")

    /// `extra`: more of Chromium's switches (`--ignore-certificate-errors` for a self-signed
    /// rendezvous: what a guest clicking past the warning does). With `clicksJoin`, a link with
    /// join=1 is joined as a person would: by clicking Join once the lobby shows.
    init(_ url: String, kind: Kind = .chromium, extra: [String] = [], clicksJoin: Bool = true) throws {
        self.kind = kind
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("conf-browser-\(UUID().uuidString)")
        let output = Pipe()
        switch kind {
        case .chromium:
            process.executableURL = URL(fileURLWithPath: Self.path)
            process.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--use-fake-device-for-media-stream",
                                 "--use-fake-ui-for-media-stream", "--autoplay-policy=no-user-gesture-required", "--no-first-run",
                                 "--enable-logging=stderr", "--v=0", "--remote-debugging-port=0", "--user-data-dir=\(profile.path)"] + extra + [url]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = output
        case .firefox:
            // Fake devices, no permission prompt, autoplay, and the page's console on stdout.
            try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
            let prefs = ["media.navigator.streams.fake", "media.navigator.permission.disabled", "devtools.console.stdout.content"]
                .map { "user_pref(\"\($0)\", true);" } + ["user_pref(\"media.autoplay.default\", 0);"]
            try prefs.joined(separator: "\n").write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
            // Line-buffered: into a pipe, Firefox's stdout would come in 4 KiB blocks.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
            // WebDriver BiDi on a port of its choosing, written to WebDriverBiDiServer.json in the profile.
            process.arguments = ["-oL", Self.firefoxPath, "--headless", "--no-remote", "--profile", profile.path,
                                 "--remote-debugging-port=0"] + extra + [url]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
        }
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard !data.isEmpty, let self else { handle.readabilityHandler = nil; return }
            self.log.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        // join=1 only gets the page ready (the name filled in, the button focused): a person
        // clicks Join, and so does the test, once the page shows its lobby.
        if clicksJoin, url.contains("join=1"), waitForEvent("lobby", timeout: .seconds(30)) != nil { try clickJoin() }
    }

    deinit {
        // Firefox can sit on SIGTERM for good: it is killed (its content processes follow it).
        if process.isRunning {
            if kind == .firefox { kill(process.processIdentifier, SIGKILL) } else { process.terminate() }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: profile)
    }

    private var devTools: RawWebSocket?
    private var nextCommand = 0

    /// Runs `expression` in the page (awaiting it when it is a promise) and returns its value as
    /// JSON gives it (nil for undefined, or when the page threw: `TestFailure` says why).
    @discardableResult
    func evaluate(_ expression: String) throws -> Any? {
        if kind == .firefox { return try evaluateInFirefox(expression) }
        let socket = try devTools ?? connectDevTools()
        devTools = socket
        let answer = try command(socket, "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true, "userGesture": true])
        let result = answer["result"] as? [String: Any]
        if let thrown = result?["exceptionDetails"] { throw TestFailure("the page threw: \(thrown)") }
        return (result?["result"] as? [String: Any])?["value"]
    }

    /// The page laid out as on a screen `width` x `height` CSS pixels (a phone: 390 x 844), and
    /// what it shows then as a PNG (Chromium only).
    func screenshot(width: Int, height: Int) throws -> Data {
        let socket = try devTools ?? connectDevTools()
        devTools = socket
        _ = try command(socket, "Emulation.setDeviceMetricsOverride",
                        ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600])
        _ = try evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")  // laid out and painted
        let answer = try command(socket, "Page.captureScreenshot", ["format": "png"])
        guard let base64 = (answer["result"] as? [String: Any])?["data"] as? String, let png = Data(base64Encoded: base64) else {
            throw TestFailure("no screenshot: \(answer)")
        }
        return png
    }

    /// Sends one command (DevTools' and BiDi's have one shape) and returns the message that
    /// answers it, skipping events and answers to nothing we wait for.
    private func command(_ socket: RawWebSocket, _ method: String, _ params: [String: Any]) throws -> [String: Any] {
        nextCommand += 1
        let id = nextCommand
        let command: [String: Any] = ["id": id, "method": method, "params": params]
        socket.sendText(String(decoding: try JSONSerialization.data(withJSONObject: command), as: UTF8.self))
        while let answer = socket.receiveJSON() {
            if answer["id"] as? Int == id { return answer }
        }
        throw TestFailure("no answer from the browser to \(method)")
    }

    /// The page's DevTools WebSocket: the port Chromium chose (DevToolsActivePort in its profile),
    /// then the page target from /json/list.
    private func connectDevTools() throws -> RawWebSocket {
        var port: UInt16?
        _ = ConfProcess.waitUntil(timeout: .seconds(15)) {
            let text = try? String(contentsOf: profile.appendingPathComponent("DevToolsActivePort"), encoding: .utf8)
            port = text?.split(separator: "\n").first.flatMap { UInt16($0) }
            return port != nil
        }
        guard let port else { throw TestFailure("Chromium wrote no DevToolsActivePort") }
        let (_, body) = try HTTP.request(port: port, method: "GET", path: "/json/list", stopsAtLength: true)
        let targets = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: Any]] ?? []
        guard let address = targets.first(where: { $0["type"] as? String == "page" })?["webSocketDebuggerUrl"] as? String,
              let path = address.range(of: "/devtools/").map({ String(address[$0.lowerBound...]) }) else {
            throw TestFailure("no page among Chromium's targets: \(body)")
        }
        return try RawWebSocket(port: port, path: path)
    }

    /// The WebDriver BiDi session and the page's browsing context, once made.
    private var bidi: (socket: RawWebSocket, context: String)?

    /// `evaluate` through WebDriver BiDi's `script.evaluate` (a script, as Chromium's: its last
    /// statement's value), its typed result turned into the values JSON gives.
    private func evaluateInFirefox(_ expression: String) throws -> Any? {
        let session = try bidi ?? connectBiDi()
        bidi = session
        let result = try bidiCommand(session.socket, "script.evaluate",
                                     ["expression": expression, "target": ["context": session.context], "awaitPromise": true])
        if result["type"] as? String == "exception" { throw TestFailure("the page threw: \(result["exceptionDetails"] ?? result)") }
        return (result["result"] as? [String: Any]).flatMap(Self.plainValue)
    }

    /// A BiDi remote value (`{"type": ..., "value": ...}`) as JSON would give it: strings,
    /// numbers, booleans, arrays and objects; nil for undefined, null and what JSON has not.
    private static func plainValue(_ remote: [String: Any]) -> Any? {
        switch remote["type"] as? String {
        case "string", "boolean": return remote["value"]
        case "number": return remote["value"] as? Double ?? remote["value"] as? Int
        case "array": return (remote["value"] as? [[String: Any]])?.map { plainValue($0) ?? NSNull() }
        case "object":
            var object: [String: Any] = [:]
            for pair in remote["value"] as? [[Any]] ?? [] {
                guard pair.count == 2, let key = pair[0] as? String, let value = pair[1] as? [String: Any] else { continue }
                object[key] = plainValue(value) ?? NSNull()
            }
            return object
        default: return nil
        }
    }

    /// A BiDi session on the port Firefox wrote to its profile, and the one page it shows.
    private func connectBiDi() throws -> (socket: RawWebSocket, context: String) {
        var port: UInt16?
        _ = ConfProcess.waitUntil(timeout: .seconds(15)) {
            let data = try? Data(contentsOf: profile.appendingPathComponent("WebDriverBiDiServer.json"))
            let server = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            port = (server?["ws_port"] as? Int).flatMap { UInt16(exactly: $0) }
            return port != nil
        }
        guard let port else { throw TestFailure("Firefox wrote no WebDriverBiDiServer.json") }
        let socket = try RawWebSocket(port: port, path: "/session")
        _ = try bidiCommand(socket, "session.new", ["capabilities": [String: Any]()])
        let tree = try bidiCommand(socket, "browsingContext.getTree", [:])
        guard let context = (tree["contexts"] as? [[String: Any]])?.first?["context"] as? String else {
            throw TestFailure("no page in Firefox's browsing contexts: \(tree)")
        }
        return (socket, context)
    }

    /// One BiDi command's result.
    private func bidiCommand(_ socket: RawWebSocket, _ method: String, _ params: [String: Any]) throws -> [String: Any] {
        let answer = try command(socket, method, params)
        if answer["type"] as? String == "error" { throw TestFailure("BiDi \(method): \(answer["error"] ?? "") \(answer["message"] ?? "")") }
        return answer["result"] as? [String: Any] ?? [:]
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) the browser and every process under it, as a
    /// laptop's lid closed and opened: nothing is sent or answered meanwhile.
    func freeze(_ frozen: Bool) {
        for pid in Self.descendants(of: process.processIdentifier) + [process.processIdentifier] {
            kill(pid, frozen ? SIGSTOP : SIGCONT)
        }
    }

    /// The processes under `pid`, from /proc (each one's parent is field 4 of its stat).
    private static func descendants(of pid: pid_t) -> [pid_t] {
        var parents: [pid_t: [pid_t]] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.range(of: ")", options: .backwards) else { continue }
            let fields = stat[close.upperBound...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { parents[parent, default: []].append(child) }
        }
        var found: [pid_t] = [], queue = [pid]
        while let next = queue.popLast() {
            let children = parents[next] ?? []
            found += children
            queue += children
        }
        return found
    }

    /// Everything the browser wrote so far (Chromium's stderr, Firefox's stdout).
    var stderr: String { log.withLock { $0 } }

    /// The page's reports so far, in order.
    var events: [[String: Any]] {
        stderr.split(separator: "\n").compactMap { line -> [String: Any]? in
            let json: Substring
            if let start = line.range(of: "\"conf-page "), let end = line.range(of: "\", source:", options: .backwards) {
                // Chromium: INFO:CONSOLE(30)] "conf-page {...}", source: http://.../call.js (30)
                json = line[start.upperBound..<end.lowerBound]
            } else if line.hasPrefix("console.log: \"conf-page "), line.hasSuffix("\"") {
                // Firefox: console.log: "conf-page {\"type\":...}", the text as a string literal.
                let literal = "\"" + line.dropFirst("console.log: \"conf-page ".count)
                guard let text = (try? JSONSerialization.jsonObject(with: Data(literal.utf8), options: .fragmentsAllowed)) as? String else { return nil }
                json = Substring(text)
            } else {
                return nil
            }
            return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        }
    }

    /// What a person does in the lobby: click Join.
    func clickJoin() throws { try evaluate("document.getElementById('join').click()") }

    /// The first report of `type` that `match` accepts, polling until `timeout`.
    func waitForEvent(_ type: String, timeout: Duration = .seconds(15), where match: ([String: Any]) -> Bool = { _ in true }) -> [String: Any]? {
        var found: [String: Any]?
        _ = ConfProcess.waitUntil(timeout: timeout) {
            found = events.first { $0["type"] as? String == type && match($0) }
            return found != nil
        }
        return found
    }
}
