internal import CGLib
import ConfCore
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP listener of its own for ACME's http-01 challenge: it serves the challenges put up
/// (`HTTP01Answer`) and nothing else, so no pin or token of the rendezvous ever crosses it in
/// clear. Each connection has `patience` and `HTTP01Answer.limit` bytes for its request, gets one
/// answer and is closed; at most `maximumConnections` are served at once.
///
/// Threading: made and used on the loop's thread.
public final class HTTP01Responder {
    public static let patience: Duration = .seconds(2)
    public static let maximumConnections = 32
    public let port: UInt16
    private let loop: EventLoop
    private let listener: ListeningSocket
    private var acceptor: ConnectionAcceptor?
    private var challenges: [String: String] = [:]
    private var open: [Int32: (watch: Timer, deadline: Timer, bytes: [UInt8])] = [:]

    public init(loop: EventLoop, endpoint: HostPort) throws(GLibError) {
        self.loop = loop
        listener = try ListeningSocket(host: endpoint.host, port: endpoint.port)
        port = listener.port
        acceptor = ConnectionAcceptor(loop: loop, listeningFD: listener.fd, log: { _ in }) { [unowned self] fd in self.serve(fd) }
    }

    deinit {
        acceptor?.stop()
        for (fd, connection) in open {
            connection.watch.cancel()
            connection.deadline.cancel()
            close(fd)
        }
    }

    /// Serves `keyAuthorization` at the token's path until `withdraw`.
    public func answer(token: String, keyAuthorization: String) { challenges[token] = keyAuthorization }

    public func withdraw() { challenges = [:] }

    private func serve(_ fd: Int32) {
        guard open.count < Self.maximumConnections else { close(fd); return }
        let watch = loop.watch(fd: fd) { [weak self] in self?.readable(fd) ?? false }
        let deadline = loop.schedule(after: Self.patience) { [weak self] in self?.finish(fd) }
        open[fd] = (watch, deadline, [])
    }

    private func readable(_ fd: Int32) -> Bool {
        guard var connection = open[fd] else { return false }
        var chunk = [UInt8](repeating: 0, count: HTTP01Answer.limit)
        let count = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        if count == 0 || (count < 0 && errno != EAGAIN) {
            finish(fd)
            return false
        }
        guard count > 0 else { return true }
        connection.bytes += chunk.prefix(count)
        open[fd] = connection
        guard case .answer(let text) = HTTP01Answer.read(connection.bytes, challenges: challenges) else { return true }
        // A few hundred bytes into an empty send buffer: written at once, or dropped with the connection.
        _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        finish(fd)
        return false
    }

    private func finish(_ fd: Int32) {
        guard let connection = open.removeValue(forKey: fd) else { return }
        connection.watch.cancel()
        connection.deadline.cancel()
        close(fd)
    }
}
