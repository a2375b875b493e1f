import ConfApp
import ConfCLI
import ConfDriver
import ConfWire
import Foundation
import Testing

/// What the reference (man page, docs/REFERENCE.md) and the hand-written pages say of conf's
/// command line is what the parser and the config reader take.
@Suite struct ReferenceTests {
    static let root = EventDocumentationTests.root
    static let program = ConfProgram.program

    static var documentedConfigKeys: [String] {
        program.info.lists.first { $0.title == "Config file" }?.entries.map(\.term) ?? []
    }

    @Test func theConfigKeysListedAreTheKeysTheReaderTakes() throws {
        let listed = Self.documentedConfigKeys
        #expect(!listed.isEmpty)
        #expect(Set(listed) == Self.program.configurableKeys, "listed against taken: \(Set(listed).symmetricDifference(Self.program.configurableKeys))")
        let file = listed.map { "\($0) = x" }.joined(separator: "\n")
        let parsed = try ConfigFile.parse(file, path: "config", allowedKeys: Self.program.configurableKeys)
        #expect(Set(parsed.values.keys) == Set(listed))
        #expect(throws: ConfigFile.Problem.self) {
            try ConfigFile.parse("colour = blue", path: "config", allowedKeys: Self.program.configurableKeys)
        }
    }

    /// Every error code the sources can emit (a `code: "..."` written anywhere, the rendezvous's
    /// codes, the reasons a rendezvous closes for good) is under ERROR CODES, once; the man page
    /// and docs/REFERENCE.md list exactly that list.
    @Test func everyErrorCodeConfCanEmitIsListedOnce() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        var emitted: Set<String> = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        let literal = try NSRegularExpression(pattern: #"code: "([a-z0-9-]+)""#)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", !file.lastPathComponent.hasPrefix("ErrorCodeReference") else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in literal.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                emitted.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        emitted.formUnion(ErrorCode.allCases.map(\.rawValue) + ["no-resume", "bad-command"])
        let listed = ErrorCodeReference.entries.map(\.code)
        #expect(emitted.count > 20 && emitted.isSubset(of: Set(listed)), "not listed: \(emitted.subtracting(listed).sorted())")
        #expect(Set(listed).count == listed.count, "listed twice")
        let documented = Self.program.info.lists.first { $0.title == "Error codes" }?.entries.map(\.term) ?? []
        #expect(documented == listed)
        let manual = try String(contentsOf: sources.deletingLastPathComponent().appendingPathComponent("man/conf.1"), encoding: .utf8)
        let reference = try String(contentsOf: sources.deletingLastPathComponent().appendingPathComponent("docs/REFERENCE.md"), encoding: .utf8)
        for code in listed {
            #expect(manual.contains(code.replacingOccurrences(of: "-", with: "\\-")) && reference.contains("`\(code)`"), "\(code)")
        }
    }

    /// Every CONF_ variable the ENVIRONMENT section names is an option's, and every option's is there.
    @Test func theEnvironmentListedIsTheOptionsEnvironment() {
        let read = Set(Self.program.root.everyOption.compactMap(\.environment))
        let listed = Set(Self.program.info.environment.flatMap { entry in
            entry.name.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("CONF_") }
        })
        #expect(!read.isEmpty && listed == read, "listed against read: \(listed.symmetricDifference(read))")
    }

    /// The README and docs/ name only options conf has (others' options are listed by tool).
    @Test func theHandWrittenPagesNameOnlyRealOptions() throws {
        let options = Set(Self.program.root.everyOption.map(\.long) + ["help", "version"])
        let others: Set<String> = [
            "test",                     // scripts/install-deps
            "prefix", "uninstall",      // scripts/install
            "filter",                   // swift test
            "now",                      // systemctl enable
            "standalone",               // certbot
        ]
        let pattern = try Regex("(^|[ `(])--([a-z][a-z0-9-]+)")
        for page in ["README.md", "docs/USING.md", "docs/DEPLOY.md", "docs/DEVELOPMENT.md"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
            for match in text.matches(of: pattern) {
                guard let name = match.output[2].substring.map(String.init) else { continue }
                #expect(options.contains(name) || others.contains(name), "\(page) names --\(name), which no conf command takes")
            }
        }
    }

    /// Every tracked file that starts with `#!` can be run.
    @Test func everyScriptIsExecutable() throws {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["-C", Self.root.path, "ls-files", "-s"]
        let pipe = Pipe()
        git.standardOutput = pipe
        try git.run()
        let listing = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        git.waitUntilExit()
        guard git.terminationStatus == 0 else { return }   // not a git checkout (an unpacked tarball): nothing to check
        var scripts = 0
        for line in listing.split(separator: "\n") {
            // "<mode> <object> <stage>\t<path>"
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2, let mode = parts[0].split(separator: " ").first else { continue }
            let path = String(parts[1])
            guard let handle = FileHandle(forReadingAtPath: Self.root.appendingPathComponent(path).path) else { continue }
            let head = handle.readData(ofLength: 2)
            try? handle.close()
            guard head == Data("#!".utf8) else { continue }
            scripts += 1
            #expect(mode == "100755", "\(path) starts with #! but is not executable (git mode \(mode)): chmod +x it")
        }
        #expect(scripts > 5)
    }
}
