import Foundation
import Testing

/// scripts/install puts conf where each tool looks for it under a prefix, and --uninstall removes
/// exactly that.
@Suite struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func install(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = repository.appendingPathComponent("scripts/install")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func installsWhereEachToolLooksAndUninstallsExactlyThat() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("conf-prefix-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: prefix) }
        // Something of the user's under the prefix must survive the uninstall.
        let mine = prefix.appendingPathComponent("bin/other-tool")
        try FileManager.default.createDirectory(at: mine.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("#!/bin/sh\n".utf8).write(to: mine)

        let installed = try Self.install(["--prefix", prefix.path, "--binary", ConfProcess.executable.path])
        #expect(installed.status == 0, "\(installed.stderr)")
        let expected = ["bin/conf", "share/man/man1/conf.1", "share/bash-completion/completions/conf",
                        "share/zsh/site-functions/_conf", "share/fish/vendor_completions.d/conf.fish"]
        for path in expected {
            #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(path).path), "missing \(path)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/conf").path))
        #expect(try String(contentsOf: prefix.appendingPathComponent("share/man/man1/conf.1"), encoding: .utf8)
                == String(contentsOf: Self.repository.appendingPathComponent("man/conf.1"), encoding: .utf8))

        // The installed binary runs.
        let version = Process()
        version.executableURL = prefix.appendingPathComponent("bin/conf")
        version.arguments = ["--version"]
        let out = Pipe()
        version.standardOutput = out
        try version.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        version.waitUntilExit()
        #expect(version.terminationStatus == 0 && text.hasPrefix("conf"), "\(text)")

        let removed = try Self.install(["--uninstall", "--prefix", prefix.path])
        #expect(removed.status == 0, "\(removed.stderr)")
        for path in expected {
            #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent(path).path), "left \(path)")
        }
        #expect(FileManager.default.fileExists(atPath: mine.path))
        // A second uninstall has nothing to do, and says so.
        let again = try Self.install(["--uninstall", "--prefix", prefix.path])
        #expect(again.status == 1 && again.stderr.contains("nothing to uninstall"))
    }

    @Test func anUnknownArgumentIsAUsageError() throws {
        let result = try Self.install(["--prefx", "/tmp/x"])
        #expect(result.status == 2 && result.stderr.contains("unknown argument '--prefx'"))
    }
}
