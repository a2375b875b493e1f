@testable import ConfIO
import Foundation
import Testing

/// The rendezvous's own accept loop (libsoup's stops for good at the first EMFILE).
@Suite struct ConnectionAcceptorTests {
    /// Out of descriptors, it backs off instead of spinning or giving up, and accepts the waiting
    /// connection once accept() works again.
    @Test func pausesWhileOutOfDescriptorsAndAcceptsOnceTheyAreBack() throws {
        let loop = EventLoop()
        let listener = try ListeningSocket(host: "127.0.0.1", port: 0)
        var outOfDescriptors = true
        var failedCalls = 0
        var accepted: [Int32] = []
        var logged: [String] = []
        let acceptor = ConnectionAcceptor(loop: loop, listeningFD: listener.fd, accept: { fd in
            if outOfDescriptors { failedCalls += 1; return -EMFILE }
            return accept(fd, nil, nil)
        }, log: { logged.append($0) }) { fd in
            accepted.append(fd)
            loop.quit()
        }
        let client = try Self.connect(port: listener.port)
        defer { close(client) }
        loop.schedule(after: .milliseconds(400)) { outOfDescriptors = false }
        loop.schedule(after: .seconds(5)) { loop.quit() }
        loop.run()
        acceptor.stop()
        for fd in accepted { close(fd) }
        #expect(accepted.count == 1)
        // 50, 100, 200 ms back-off within 400 ms: a handful of tries, not a spin.
        #expect((1...6).contains(failedCalls), "\(failedCalls) accept calls while out of descriptors")
        #expect(logged.first?.contains("Too many open files") == true, "\(logged)")
        #expect(logged.last == "accepting connections again")
    }

    static func connect(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw CocoaError(.fileReadUnknown) }
        return fd
    }
}
