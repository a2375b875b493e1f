import Foundation
import Testing

/// The rendezvous's private files (its secret, its TLS key, a room key) are trusted only when
/// this user owns them and their directory, and nobody else may read them or write beside them
/// (docs/SECURITY.md, "State files"). Another user's files are made with chown, so root only.
@Suite(.enabled(if: geteuid() == 0, "needs root to give files to another user"))
struct StateFileTests {
    static let nobody: uid_t = 65534

    @Test func aStateDirectoryOfAnotherUserIsRefused() throws {
        let directory = try RoomCreationTests.temporaryDirectory("state-owner")
        defer { try? FileManager.default.removeItem(at: directory) }
        chown(directory.path, Self.nobody, Self.nobody)
        let server = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--state-dir", directory.path])
        #expect(server.waitForExit() == 1)
        #expect(server.stderr.contains("belongs to user 65534"), "\(server.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("rendezvous-secret").path))
    }

    @Test func aStateDirectoryOthersMayWriteToIsRefused() throws {
        let directory = try RoomCreationTests.temporaryDirectory("state-open")
        defer { try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, 0o777)
        let server = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--state-dir", directory.path])
        #expect(server.waitForExit() == 1)
        #expect(server.stderr.contains("chmod 700"), "\(server.stderr)")
    }

    @Test func aSecretFileOfAnotherUserIsRefusedEvenWithMode600() throws {
        let directory = try RoomCreationTests.temporaryDirectory("state-file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("rendezvous-secret")
        // 32 bytes another user chose: a secret someone else knows.
        FileManager.default.createFile(atPath: secret.path, contents: Data(repeating: 7, count: 32), attributes: [.posixPermissions: 0o600])
        chown(secret.path, Self.nobody, Self.nobody)
        let server = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--state-dir", directory.path])
        #expect(server.waitForExit() == 1)
        #expect(server.stderr.contains("belongs to user 65534"), "\(server.stderr)")
        // The same file as ours starts.
        chown(secret.path, 0, 0)
        let ours = try RendezvousProcess(["--state-dir", directory.path])
        ours.process.signal(SIGTERM)
        #expect(ours.process.waitForExit() == 0)
    }

    /// Another user who can write nowhere in our directory cannot plant the file we make; what
    /// is already at a name we would write through (a link to elsewhere) is never followed.
    @Test func aLinkAtTheSecretsNameIsNotFollowed() throws {
        let directory = try RoomCreationTests.temporaryDirectory("state-link")
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("elsewhere")
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("rendezvous-secret").path, withDestinationPath: target.path)
        let server = try ConfProcess(["rendezvous", "--listen", "127.0.0.1:0", "--state-dir", directory.path])
        #expect(server.waitForExit() == 1, "\(server.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }
}
