import Foundation
import Testing

/// Small things a person in a call notices: what conf host prints, stdin commands, what is said
/// when leaving.
@Suite struct CallUXTests {
    @Test func hostPrintsTheListenOnlyJoinCommandToo() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json"])
        let room = try #require(host.waitForEvent("room"))
        let listenPin = try #require(room["listen_pin"] as? String)
        let listenJoin = try #require(room["listen_join_command"] as? String)
        #expect(listenJoin.hasPrefix("conf join \(room["room"] as? String ?? "?") \(listenPin) --server 127.0.0.1:"))
        #expect(host.stderr.contains("Listeners join with:  " + listenJoin))
        let listener = try ConfProcess(listenJoin.split(separator: " ").dropFirst().map(String.init) + ["--as", "lee", "--json"])
        #expect(listener.waitForEvent("joined")?["role"] as? String == "listener")
        host.signal(SIGTERM)
        #expect(host.waitForExit() == 0 && listener.waitForExit() == 0)
    }
}
