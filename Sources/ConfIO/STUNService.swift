import ConfCore
import ConfRendezvous
import ConfWire

/// The rendezvous's STUN server: Binding requests on UDP at the rendezvous's own port number are
/// answered with the address they came from (RFC 8489), so that every participant learns its
/// address outside a NAT from the server it already talks to. Stateless: nothing is kept per
/// client. The answers are bounded in all by a token bucket, so that the port cannot be used to
/// flood a third party with answers to forged requests (an answer is at most ~3 times its request).
///
/// Threading: made and used on the loop's thread.
public final class STUNService {
    public let port: UInt16
    private let socket: UDPSocket
    private let responder = STUNBindingResponder()
    private var budget = TokenBucket(rate: 2_000, burst: 500)
    private let clock: any MonotonicClock
    public private(set) var answered = 0

    /// Binds UDP `host`:`port` (0: any free port; read `port` for the one taken). With
    /// `reusePort`, the rendezvous's other processes may bind the same port.
    public init(loop: EventLoop, host: String, port: UInt16, reusePort: Bool = false) throws(GLibError) {
        socket = try UDPSocket(host: host, port: port, reusePort: reusePort)
        self.port = socket.port
        clock = loop.clock
        socket.receive(on: loop) { [unowned self] bytes, sender in self.received(Array(bytes), from: sender) }
    }

    private func received(_ bytes: [UInt8], from sender: SocketAddress) {
        guard let from = STUNTransportAddress(address: sender.address, port: sender.port),
              let answer = responder.respond(to: bytes, from: from),
              budget.take(at: clock.now()) else { return }
        socket.send(answer, to: sender)
        answered += 1
    }

    public func close() { socket.close() }
}
