import ConfIO
import ConfWire

/// `conf host --certificate acme` behind a router: asks it to forward external TCP 443 to the
/// built-in rendezvous, where the CA's tls-alpn-01 validation must arrive and where the link then
/// points (no port in it); or 80 to the http-01 responder. Many routers refuse ports below 1024
/// (OpenWrt's and miniupnpd's default allow 1024-65535): then `decided` says why, and the host
/// goes on with its own certificate.
///
/// Threading: the loop's thread.
final class LowPortMapping {
    static let https: UInt16 = 443
    static let http: UInt16 = 80
    let port: UInt16
    private let loop: EventLoop
    private var mapping: RouterPortMapping?
    private var decided: ((Result<String, Refusal>) -> Void)?
    private var timer: Timer?

    struct Refusal: Error { let reason: String }

    /// For external `port`.
    init(loop: EventLoop, port: UInt16) {
        self.loop = loop
        self.port = port
    }

    /// Asks for external `self.port` → `port` on this machine; `decided` once with the router's external
    /// address, or why not (after at most the time UPnP is given, and a little more).
    func start(route: DefaultRoute, port: UInt16, decided: @escaping (Result<String, Refusal>) -> Void) {
        self.decided = decided
        let mapping = RouterPortMapping(loop: loop, route: route, port: port, externalPort: self.port, transports: [.tcp]) { [weak self] fact in
            self?.add(fact)
        }
        self.mapping = mapping
        mapping.start()
        timer = loop.schedule(after: RouterPortMapping.upnpDelay + RouterPortMapping.upnpPatience + .seconds(2)) { [weak self] in
            guard let self else { return }
            self.decide(.failure(Refusal(reason: "the router did not answer a request for port \(self.port)")))
        }
    }

    /// Deletes the mapping (when the certificate could not be had, or at the host's end); `done`
    /// once the router has answered, also when a release is already under way.
    func release(done: @escaping () -> Void) {
        timer?.cancel()
        decided = nil
        if releasing != nil { releasing?.append(done); return }
        guard let mapping else { return done() }
        self.mapping = nil
        releasing = [done]
        mapping.release { [weak self] in
            withExtendedLifetime(mapping) {}
            let waiting = self?.releasing ?? []
            self?.releasing = nil
            for done in waiting { done() }
        }
    }

    /// Callers of `release` waiting for the router's answer.
    private var releasing: [() -> Void]?

    private func add(_ fact: ReachabilityJudge.Fact) {
        switch fact {
        case .gateway(.mapped(let grant)):
            if !grant.ports.isEmpty, grant.ports.allSatisfy({ $0.externalPort == port }), grant.externalAddress.scope == .public {
                decide(.success(grant.externalAddress.description))
            } else {
                let offered = grant.ports.map { String($0.externalPort) }.joined(separator: ", ")
                decide(.failure(Refusal(reason: "the router does not forward port \(port) (it offered \(offered) instead; many routers open only ports 1024-65535)")))
            }
        case .upnpMapped(true, let address, let external) where external == port && IPv4Address(address)?.scope == .public:
            decide(.success(address))
        case .upnpRefused(_, let reason):
            decide(.failure(Refusal(reason: "the router refuses to forward port \(port) (\(reason.prefix(80))); many allow only ports 1024-65535")))
        case .gateway(.refused), .gateway(.noPublicAddress), .gateway(.unanswered), .gateway(.noGatewayAnswered), .upnpNoExternalAddress, .upnpSilent,
             .upnpMapped, .gateway(.released):
            break  // The other way may still answer; the timer ends the wait.
        }
    }

    private func decide(_ result: Result<String, Refusal>) {
        timer?.cancel()
        let decided = self.decided
        self.decided = nil
        decided?(result)
    }
}
