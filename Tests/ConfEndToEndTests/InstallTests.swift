import Foundation
import Testing

/// scripts/install puts conf where each tool looks for it under a prefix, and --uninstall removes
/// exactly that.
@Suite struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs scripts/install in `directory` (else this process's); its output is small enough to
    /// read one pipe after the other.
    static func install(_ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = repository.appendingPathComponent("scripts/install")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe(), errors = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, out, text)
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

    /// Relative paths are the caller's, not the repository's (the script changes to it).
    @Test func relativePathsAreTheCallersWorkingDirectorys() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conf-caller-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let binary = directory.appendingPathComponent("built-conf")
        try Data("#!/bin/sh\n".utf8).write(to: binary)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)

        let installed = try Self.install(["--prefix", "rel", "--binary", "./built-conf"], in: directory)
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("rel/bin/conf").path), "\(installed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent("rel").path))

        let removed = try Self.install(["--uninstall", "--prefix", "rel"], in: directory)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("rel/bin/conf").path))
    }

    @Test func helpAskedForIsPrintedAndSucceeds() throws {
        for flag in ["--help", "-h"] {
            let result = try Self.install([flag])
            #expect(result.status == 0 && result.stdout.contains("--uninstall") && result.stderr.isEmpty, "\(flag): \(result)")
        }
    }

    @Test func anUnknownArgumentIsAUsageError() throws {
        let result = try Self.install(["--prefx", "/tmp/x"])
        #expect(result.status == 2 && result.stderr.contains("unknown argument '--prefx'") && result.stderr.contains("--uninstall"))
        #expect(result.stdout.isEmpty)
    }
}
