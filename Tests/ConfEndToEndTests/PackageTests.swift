import Foundation
import Testing

/// scripts/package-deb builds a Debian package that runs without the Swift toolchain: built once,
/// then inspected and run from an unpacked tree.
@Suite struct PackageTests {
    static func run(_ program: String, _ arguments: [String], directory: URL? = nil) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read stderr on another thread: the build writes a lot to it.
        nonisolated(unsafe) var errText = ""
        let readErrors = DispatchGroup()
        readErrors.enter()
        Thread {
            errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            readErrors.leave()
        }.start()
        let outText = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        readErrors.wait()
        return (process.terminationStatus, outText, errText)
    }

    @Test func theDebianPackageHoldsWhatItShouldAndRunsWithoutTheToolchain() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("conf-deb-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let built = try Self.run(InstallTests.repository.appendingPathComponent("scripts/package-deb").path,
                                 ["--output", scratch.path])
        #expect(built.status == 0, "\(built.err.suffix(2000))")
        let deb = built.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb), "\(built.out)")

        let contents = try Self.run("/usr/bin/dpkg-deb", ["-c", deb]).out
        for path in ["./usr/bin/conf", "./usr/share/man/man1/conf.1.gz", "./usr/share/bash-completion/completions/conf",
                     "./usr/share/zsh/vendor-completions/_conf", "./usr/share/fish/vendor_completions.d/conf.fish"] {
            #expect(contents.contains(path), "missing \(path)")
        }
        let depends = try Self.run("/usr/bin/dpkg-deb", ["-f", deb, "Depends"]).out
        for package in ["libc6", "libnice10", "libsoup-3.0-0", "libsrtp2-1", "libopus0", "libvpx7", "libpulse0", "glib-networking"] {
            #expect(depends.contains(package), "Depends lacks \(package): \(depends)")
        }
        #expect(!depends.lowercased().contains("swift"))
        // Loaded when a window opens, not linked: dpkg-shlibdeps cannot see them.
        let recommends = try Self.run("/usr/bin/dpkg-deb", ["-f", deb, "Recommends"]).out
        #expect(recommends.contains("libsdl2-2.0-0") && recommends.contains("libsdl2-ttf-2.0-0"), "Recommends: \(recommends)")

        let unpacked = scratch.appendingPathComponent("root")
        #expect(try Self.run("/usr/bin/dpkg-deb", ["-x", deb, unpacked.path]).status == 0)
        let binary = unpacked.appendingPathComponent("usr/bin/conf").path
        // Every library it loads comes from Debian's directories, none from a Swift toolchain.
        let libraries = try Self.run("/usr/bin/ldd", [binary]).out
        #expect(!libraries.lowercased().contains("swift") && !libraries.contains("not found"), "\(libraries)")
        let version = try Self.run(binary, ["--version"])
        #expect(version.status == 0 && version.out.hasPrefix("conf ") && version.out.contains("(commit "), "\(version.out)")
        let help = try Self.run(binary, ["--help"])
        #expect(help.status == 0 && help.out.contains("host") && help.out.contains("join"))
    }
}
