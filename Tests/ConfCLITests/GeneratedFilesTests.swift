import ConfApp
import ConfCLI
import ConfDriver
import ConfMedia
import ConfWeb
import Foundation
import Testing

/// The committed completions, man page and docs/REFERENCE.md must be what the command tree generates. To re-record
/// after changing the tree: `CONF_UPDATE_GENERATED=1 swift test --filter GeneratedFilesTests`.
@Suite struct GeneratedFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let files: [(String, String)] = [
        ("completions/conf.bash", BashCompletionGenerator.script(for: ConfProgram.program)),
        ("completions/_conf", ZshCompletionGenerator.script(for: ConfProgram.program)),
        ("completions/conf.fish", FishCompletionGenerator.script(for: ConfProgram.program)),
        ("man/conf.1", ManPageGenerator.page(for: ConfProgram.program)),
        ("docs/REFERENCE.md", MarkdownReferenceGenerator.page(for: ConfProgram.program)),
        ("Sources/ConfWeb/CallPageSources.swift", callPageSources()),
        ("Tests/Web/tile-layout-cases.json", tileLayoutCases()),
    ]

    /// conf's window layout for a set of pictures and windows: the call page's script must place
    /// its tiles the same (Tests/Web/call.test.js reads these).
    static func tileLayoutCases() -> String {
        let cases: [([Double], Int, Int)] = [
            ([4.0 / 3], 648, 488), ([16.0 / 9], 648, 488), ([3.0 / 4, 16.0 / 9], 640, 480),
            ([Double](repeating: 4.0 / 3, count: 4), 1280, 720), ([16.0 / 9, 16.0 / 9, 4.0 / 3], 400, 900),
            ([4.0 / 3, 4.0 / 3, 4.0 / 3], 1000, 700), ([16.0 / 9, 4.0 / 3, 9.0 / 16, 1], 1366, 768), ([0, -1, 1e9], 300, 200),
            ([4.0 / 3, 16.0 / 9], 3, 3),
        ]
        let lines = cases.map { aspects, width, height in
            let rects = TileLayout.arrange(aspects, width: width, height: height)
            return "  {\"aspects\": [\(aspects.map { "\($0)" }.joined(separator: ", "))], \"width\": \(width), \"height\": \(height), \"rects\": ["
                + rects.map { "[\($0.x), \($0.y), \($0.width), \($0.height)]" }.joined(separator: ", ") + "]}"
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]\n"
    }

    /// The call page's files (Sources/ConfWeb/page) as Swift string literals, so that the binary
    /// carries them.
    static func callPageSources() -> String {
        let page = root.appendingPathComponent("Sources/ConfWeb/page")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: page.path)) ?? []).sorted()
        var text = "// Generated from Sources/ConfWeb/page by GeneratedFilesTests: edit the files there, then run\n"
            + "// CONF_UPDATE_GENERATED=1 swift test --filter GeneratedFilesTests.\n\nextension CallPage {\n    static let sources: [String: String] = [\n"
        for name in names {
            let body = (try? String(contentsOf: page.appendingPathComponent(name), encoding: .utf8)) ?? ""
            precondition(!body.contains("\"\"\"##"), "\(name) holds the literal's end")
            text += "        \"\(name)\": ##\"\"\"\n\(body.hasSuffix("\n") ? String(body.dropLast()) : body)\n\"\"\"##,\n"
        }
        return text + "    ]\n}\n"
    }

    @Test(arguments: files.map(\.0))
    func committedFileMatchesTheTree(_ path: String) throws {
        let generated = Self.files.first { $0.0 == path }!.1
        let url = Self.root.appendingPathComponent(path)
        if ProcessInfo.processInfo.environment["CONF_UPDATE_GENERATED"] == "1" {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try generated.write(to: url, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == generated, "\(path) is stale: run CONF_UPDATE_GENERATED=1 swift test --filter GeneratedFilesTests")
    }

    @Test func manPageDocumentsEveryOptionExitCodeAndEvent() {
        let page = ManPageGenerator.page(for: ConfProgram.program)
        for command in ConfProgram.program.root.subcommands {
            for option in command.options { #expect(page.contains("\\-\\-" + option.long.replacingOccurrences(of: "-", with: "\\-"))) }
        }
        for code in ExitCode.allCases { #expect(page.contains(".B \(code.rawValue)\n")) }
        for event in ["room", "joined", "peer\\-joined", "peer\\-left", "left", "error"] { #expect(page.contains(".B \(event)\n")) }
        for section in ["EXIT STATUS", "JSON EVENTS", "ENVIRONMENT", "FILES", "EXAMPLES", "CONF_SERVER", "CONF_NAME", "NO_COLOR"] {
            #expect(page.contains(section))
        }
    }
}
