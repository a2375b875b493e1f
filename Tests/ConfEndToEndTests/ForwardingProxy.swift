import Foundation
import Synchronization

/// An HTTP proxy on 127.0.0.1 that sends every connection it takes to one loopback port, whatever
/// host the request names, and keeps the first request line of each connection (later requests
/// on a kept-alive connection are relayed unseen; a WebSocket opens a connection of its own): enough to see which requests a
/// client sent through a proxy and that they work through it. It forwards absolute-form requests
/// (`GET ws://host/...`, as libsoup sends plain ones) as they came, and answers CONNECT with 200
/// before relaying.
///
/// Threading: one thread accepts; each connection gets a thread that relays both ways with poll.
final class ForwardingProxy: Sendable {
    let port: UInt16
    private let listener: Int32
    private let upstreamPort: UInt16
    private let lines = Mutex<[String]>([])
    private let stopped = Atomic<Bool>(false)

    /// Request lines seen so far, in order.
    var requestLines: [String] { lines.withLock { $0 } }

    init(forwardingTo upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else { close(listener); throw TestFailure("proxy: cannot listen on 127.0.0.1: errno \(errno)") }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            Thread.detachNewThread { [self] in serve(client) }
        }
        close(listener)
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            let n = recv(client, &chunk, 1, 0)  // byte by byte: nothing past the head is taken
            if n < 0 && errno == EINTR { continue }
            guard n > 0, head.count < 16_384 else { return }
            head += chunk[..<n]
        }
        let text = String(decoding: head, as: UTF8.self)
        let firstLine = text.components(separatedBy: "\r\n")[0]
        lines.withLock { $0.append(firstLine) }
        guard let upstream = try? TCPConnection(port: upstreamPort) else { return }
        if firstLine.hasPrefix("CONNECT ") {
            _ = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        } else {
            upstream.write(head)
        }
        withExtendedLifetime(upstream) { relay(client, upstream.fd, buffer: &chunk) }
    }

    /// Copies each side's bytes to the other until either ends or the proxy stops.
    private func relay(_ a: Int32, _ b: Int32, buffer: inout [UInt8]) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        while !stopped.load(ordering: .relaxed) {
            let ready = poll(&fds, 2, 100)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return }
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let n = recv(entry.fd, &buffer, buffer.count, 0)
                guard n > 0 else { return }
                let other = fds[1 - index].fd
                var sent = 0
                while sent < n {
                    let m = buffer[sent..<n].withUnsafeBytes { send(other, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard m > 0 else { return }
                    sent += m
                }
            }
        }
    }
}
