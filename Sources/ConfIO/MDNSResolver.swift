import ConfCore
import ConfWire

/// Looks up the `<uuid>.local` names browsers put in their host candidates, by Multicast DNS
/// (RFC 6762, `MDNSMessage`). Browsers answer only queries sent from port 5353, to the group, so
/// the resolver has a socket there, shared with any responder on this machine (SO_REUSEADDR and
/// SO_REUSEPORT), joined to 224.0.0.251 on every interface. A query goes twice, 250 ms apart; an
/// answer within `patience` resolves it, else nil.
///
/// Threading: the loop's thread.
public final class MDNSResolver {
    public static let patience: Duration = .seconds(1)
    static let group = SocketAddress(address: [224, 0, 0, 251], port: 5353)

    private let loop: EventLoop
    private var socket: UDPSocket?
    private var socketRefused = false
    /// Per name, those waiting for its address and the timers asking for it.
    private var waiting: [String: (callbacks: [(String?) -> Void], timers: [Timer])] = [:]

    public init(loop: EventLoop) { self.loop = loop }

    deinit { for (_, entry) in waiting { for timer in entry.timers { timer.cancel() } } }

    /// Calls `done` once with `name`'s IPv4 address, or nil (not a browser's name, no socket on
    /// 5353, or no answer in time).
    public func resolve(_ name: String, _ done: @escaping (String?) -> Void) {
        let name = name.lowercased()
        guard let query = MDNSMessage.query(for: name), let socket = openSocket() else { return done(nil) }
        if waiting[name] != nil {
            waiting[name]?.callbacks.append(done)
            return
        }
        socket.send(query, to: Self.group)
        let again = loop.schedule(after: .milliseconds(250)) { [weak self] in self?.socket?.send(query, to: Self.group) }
        let giveUp = loop.schedule(after: Self.patience) { [weak self] in self?.finish(name, nil) }
        waiting[name] = ([done], [again, giveUp])
    }

    private func openSocket() -> UDPSocket? {
        if let socket { return socket }
        guard !socketRefused, let made = try? UDPSocket(host: "0.0.0.0", port: 5353, reusePort: true) else {
            socketRefused = true
            return nil
        }
        var joined = false
        for address in NetworkInterfaces.reachableIPv4Addresses() {
            if let interface = IPv4Address(address)?.octets, made.joinMulticastGroup(Self.group.address, interface: interface) { joined = true }
        }
        if !joined { joined = made.joinMulticastGroup(Self.group.address) }
        guard joined else {
            socketRefused = true
            return nil
        }
        made.receive(on: loop) { [weak self] bytes, _ in self?.received(Array(bytes)) }
        socket = made
        return made
    }

    private func received(_ message: [UInt8]) {
        for name in Array(waiting.keys) {
            guard let address = MDNSMessage.addresses(of: name, in: message).first else { continue }
            finish(name, address.map(String.init).joined(separator: "."))
        }
    }

    private func finish(_ name: String, _ address: String?) {
        guard let entry = waiting.removeValue(forKey: name) else { return }
        for timer in entry.timers { timer.cancel() }
        for callback in entry.callbacks { callback(address) }
    }
}
