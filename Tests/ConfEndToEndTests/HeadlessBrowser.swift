import Foundation
import Synchronization

/// Debian's Chromium, headless, with its fake camera (a moving test picture) and fake microphone
/// (beeps), opening one URL in a profile of its own. What the call page shows arrives as its
/// `conf-page {json}` console lines, which Chromium writes to stderr.
final class HeadlessBrowser: @unchecked Sendable {
    static let path = "/usr/bin/chromium"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }

    private let process = Process()
    private let profile: URL
    private let log = Mutex<String>("")

    init(_ url: String) throws {
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("conf-browser-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream",
                             "--use-fake-ui-for-media-stream", "--autoplay-policy=no-user-gesture-required", "--no-first-run",
                             "--enable-logging=stderr", "--v=0", "--user-data-dir=\(profile.path)", url]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard !data.isEmpty, let self else { handle.readabilityHandler = nil; return }
            self.log.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: profile)
    }

    /// Everything Chromium wrote to stderr so far.
    var stderr: String { log.withLock { $0 } }

    /// The page's reports so far, in order.
    var events: [[String: Any]] {
        stderr.split(separator: "\n").compactMap { line -> [String: Any]? in
            // INFO:CONSOLE(30)] "conf-page {...}", source: http://.../call.js (30)
            guard let start = line.range(of: "\"conf-page "), let end = line.range(of: "\", source:", options: .backwards) else { return nil }
            let json = line[start.upperBound..<end.lowerBound]
            return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        }
    }

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
