import ConfDriver
import ConfIO
import ConfRendezvous
import ConfWire

/// The rendezvous's TCP listener and its STUN server on UDP at the same port number.
///
/// With a port given, both are bound there (STUN is left out, and said so, when the UDP port is
/// taken). With port 0, the UDP socket is bound first and TCP is tried at its number: that number
/// is free for UDP, not necessarily for TCP (under load, another program's outgoing connection
/// may hold it), so a refused number is kept bound while the next is drawn, and the kernel does not
/// offer it again (with `shared`, SO_REUSEPORT, it may: the attempts stay bounded). After
/// `attempts` refusals, the listener takes any port and STUN is left out.
/// `listen` is told whether STUN answers at the port it is given, for the rendezvous to hand
/// itself out as a STUN server or not.
enum RendezvousPorts {
    static let attempts = 32

    static func bind<Listener>(loop: EventLoop, endpoint: HostPort, shared: Bool, quiet: Bool, participants: STUNParticipants,
                               listen: (HostPort, _ answersSTUN: Bool) throws(GLibError) -> Listener) throws(GLibError) -> (Listener, STUNService?) {
        if endpoint.port != 0 {
            // STUN's warning waits for the listener: a port TCP cannot have is the error to read.
            let stun = Result { () throws(GLibError) in
                try STUNService(loop: loop, host: endpoint.host, port: endpoint.port, reusePort: shared, participants: participants)
            }
            let service = try? stun.get()
            let listener: Listener
            do {
                listener = try listen(endpoint, service != nil)
            } catch {
                service?.close()
                throw error
            }
            if case .failure(let error) = stun, !quiet { sayNoSTUN(at: endpoint, error) }
            return (listener, service)
        }
        var refused: [STUNService] = []
        defer { refused.forEach { $0.close() } }
        var noUDP = false
        for _ in 0..<attempts {
            guard let stun = stunService(loop: loop, endpoint: endpoint, shared: shared, quiet: quiet, participants: participants) else {
                noUDP = true  // said on stderr, with the system's reason
                break
            }
            do {
                return (try listen(HostPort(host: endpoint.host, port: stun.port), true), stun)
            } catch {
                refused.append(stun)
            }
        }
        let listener = try listen(endpoint, false)
        if !quiet && !noUDP {
            Console.err("rendezvous: no STUN: no port number on \(endpoint.host) was free for both TCP and UDP — participants get only --stun servers")
        }
        return (listener, nil)
    }

    /// The STUN server on UDP at `endpoint`; nil (said on stderr) when that UDP port is taken:
    /// the rendezvous then works without, and hands out only the STUN servers it is given.
    private static func stunService(loop: EventLoop, endpoint: HostPort, shared: Bool, quiet: Bool, participants: STUNParticipants) -> STUNService? {
        do {
            return try STUNService(loop: loop, host: endpoint.host, port: endpoint.port, reusePort: shared, participants: participants)
        } catch {
            if !quiet { sayNoSTUN(at: endpoint, error) }
            return nil
        }
    }

    private static func sayNoSTUN(at endpoint: HostPort, _ error: GLibError) {
        Console.err("rendezvous: no STUN on UDP \(endpoint): \(error.message) — participants get only --stun servers")
    }
}
