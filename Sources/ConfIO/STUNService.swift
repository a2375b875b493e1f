import ConfCore
import ConfRendezvous
import ConfWire

/// The rendezvous's STUN server: Binding requests on UDP at the rendezvous's own port number are
/// answered with the address they came from (RFC 8489), so that every participant learns its
/// address outside a NAT from the server it already talks to.
///
/// Which requests are answered is `STUNAnswerBudget`'s, from the sender's address alone and
/// before anything is parsed beyond the header: a budget per source under a bound in all, and a
/// share of that bound for the sources that hold a WebSocket open here (`participants`). So one
/// sender's flood spends its own budget, a flood from forged sources cannot spend the
/// participants' share, and the port cannot flood a third party (an answer is at most ~3 times
/// its request).
///
/// Threading: made and used on the loop's thread.
public final class STUNService {
    public let port: UInt16
    private let socket: UDPSocket
    private let responder = STUNBindingResponder()
    private var budget = STUNAnswerBudget()
    private let participants: STUNParticipants?
    private let clock: any MonotonicClock
    public private(set) var answered = 0

    /// Binds UDP `host`:`port` (0: any free port; read `port` for the one taken). With
    /// `reusePort`, the rendezvous's other processes may bind the same port.
    public init(loop: EventLoop, host: String, port: UInt16, reusePort: Bool = false, participants: STUNParticipants? = nil) throws(GLibError) {
        socket = try UDPSocket(host: host, port: port, reusePort: reusePort)
        socket.growReceiveBuffer()
        self.port = socket.port
        self.participants = participants
        clock = loop.clock
        socket.receive(on: loop) { [unowned self] bytes, sender in self.received(bytes, from: sender) }
    }

    private func received(_ bytes: ArraySlice<UInt8>, from sender: SocketAddress) {
        guard STUNBindingResponder.looksLikeBindingRequest(bytes), let source = STUNAnswerBudget.Source(address: sender.address),
              budget.admit(source, participant: participants?.contains(source) ?? false, now: clock.now()),
              let from = STUNTransportAddress(address: sender.address, port: sender.port),
              let answer = responder.respond(to: Array(bytes), from: from) else { return }
        socket.send(answer, to: sender)
        answered += 1
    }

    public func close() { socket.close() }
}
