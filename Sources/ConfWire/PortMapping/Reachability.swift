/// Whether others on the internet can reach `conf host`'s built-in rendezvous, as the `reachability`
/// event says it: a verdict, the address others use (as the join line prints it), how it came to
/// be reachable, and what to do. Every verdict comes from something a router or the machine's
/// own addresses said, never from a guess (`ReachabilityJudge`).
public struct Reachability: Equatable, Sendable {
    public enum Verdict: String, Sendable {
        /// Reachable from the internet: a router forwards the port, or the address is public.
        case reachable
        /// Behind a NAT that did not open: no router answered, or it refused.
        case closed
        /// The router has no public address of its own: a forwarded port cannot help.
        case carrierGradeNAT = "carrier-grade-nat"
    }

    public enum Via: String, Sendable {
        case upnp, natPMP = "nat-pmp", pcp, `public`, none
    }

    public var verdict: Verdict
    /// "host:port": what the join line names.
    public var address: String
    public var via: Via
    /// What it means and what to do, in words.
    public var advice: String

    public init(verdict: Verdict, address: String, via: Via, advice: String) {
        self.verdict = verdict
        self.address = address
        self.via = via
        self.advice = advice
    }

    /// "host:port", with brackets around an IPv6 address.
    static func endpoint(_ host: String, _ port: UInt16) -> String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static let useAStandingRendezvous = "run `conf rendezvous` on a machine others can reach and use `conf host --server HOST:PORT`"

    /// Listening on an address of this machine that is public: nothing to open.
    public static func publicAddress(_ host: String, port: UInt16) -> Reachability {
        Reachability(verdict: .reachable, address: endpoint(host, port), via: .public,
                     advice: "\(host) is a public address of this machine: others reach it directly (unless a firewall here blocks TCP and UDP port \(port))")
    }

    /// Listening on loopback only: this machine alone can join.
    public static func loopback(_ host: String, port: UInt16) -> Reachability {
        Reachability(verdict: .closed, address: endpoint(host, port), via: .none,
                     advice: "the rendezvous listens on \(host), which only this machine reaches: use --listen [::]:\(port) for others")
    }

    /// Port mapping is off, or there is no router to ask: nothing was opened.
    public static func notOpened(_ host: String, port: UInt16, why: String) -> Reachability {
        Reachability(verdict: .closed, address: endpoint(host, port), via: .none,
                     advice: "\(why): others outside this network cannot reach \(endpoint(host, port)) unless TCP and UDP port \(port) are "
                         + "forwarded to it; or \(useAStandingRendezvous)")
    }
}

/// Decides the verdict from what the routers say, as it comes: the gateway's PCP or NAT-PMP
/// session, and UPnP-IGD. Pure: the caller feeds each fact and reads `verdict`, which is set once
/// and never changes.
///
/// - A mapping of the rendezvous's TCP port at a public address: `reachable` at once.
/// - A router that says it has no public address (PCP/NAT-PMP network failure, an external
///   address in 100.64.0.0/10 or a private range, UPnP without an external address):
///   `carrier-grade-nat` at once.
/// - Otherwise, once both ways have finished (refused, or no answer): `closed`, naming what each said.
public struct ReachabilityJudge: Sendable {
    public enum Fact: Equatable, Sendable {
        /// From the gateway's `PortMappingSession`.
        case gateway(PortMappingEvent)
        /// A UPnP router forwards `externalPort` (TCP when `tcp`) at `externalAddress` (its own
        /// words: may be empty or private).
        case upnpMapped(tcp: Bool, externalAddress: String, externalPort: UInt16)
        /// A UPnP router refused (its words).
        case upnpRefused(tcp: Bool, reason: String)
        /// A UPnP router answered but could not say its external address.
        case upnpNoExternalAddress
        /// No UPnP router answered in the time given.
        case upnpSilent
    }

    public let port: UInt16
    /// This machine's address on the LAN (where the router forwards to).
    public let lanAddress: String
    public private(set) var verdict: Reachability?
    private var gatewayOutcome: String?
    private var upnpOutcome: String?

    public init(port: UInt16, lanAddress: String) {
        self.port = port
        self.lanAddress = lanAddress
    }

    public mutating func add(_ fact: Fact) {
        guard verdict == nil else { return }
        switch fact {
        case .gateway(.mapped(let grant)):
            guard let tcp = grant.ports.first(where: { $0.wanted.transport == .tcp }) else { return }
            let via: Reachability.Via = grant.mappingProtocol == .pcp ? .pcp : .natPMP
            reachable(at: grant.externalAddress.description, port: tcp.externalPort, via: via, by: grant.mappingProtocol.description)
        case .gateway(.noPublicAddress(let kind, let address, let result)):
            let said = address.map { "its external address is \($0)" } ?? result.map { "it answered \($0)" } ?? "it has no external address"
            carrierGrade("the router (\(kind)) has no public address of its own: \(said)")
        case .gateway(.refused(let result, _)):
            gatewayOutcome = gatewayOutcome ?? "the router refused over \(result.mappingProtocol) (\(result))"
        case .gateway(.noGatewayAnswered):
            gatewayOutcome = gatewayOutcome ?? "no PCP or NAT-PMP answer from the router"
        case .gateway(.unanswered(let kind, _)):
            gatewayOutcome = gatewayOutcome ?? "the router stopped answering \(kind)"
        case .gateway(.released):
            gatewayOutcome = gatewayOutcome ?? "no PCP or NAT-PMP mapping"
        case .upnpMapped(let tcp, let externalAddress, let externalPort):
            guard tcp else { return }
            if let address = IPv4Address(externalAddress), address.scope == .public {
                reachable(at: externalAddress, port: externalPort, via: .upnp, by: "UPnP-IGD")
            } else {
                carrierGrade("the router (UPnP-IGD) has no public address of its own: its external address is "
                             + (externalAddress.isEmpty ? "empty" : externalAddress))
            }
        case .upnpRefused(let tcp, let reason):
            guard tcp else { return }
            upnpOutcome = upnpOutcome ?? "the router refused over UPnP-IGD (\(reason))"
        case .upnpNoExternalAddress:
            carrierGrade("the router (UPnP-IGD) has no public address of its own: it gave no external address")
        case .upnpSilent:
            upnpOutcome = upnpOutcome ?? "no UPnP-IGD answer"
        }
        if verdict == nil, let gatewayOutcome, let upnpOutcome {
            let asked = gatewayOutcome.hasPrefix("no ") && upnpOutcome.hasPrefix("no ")
                ? "no router answered (UPnP-IGD, NAT-PMP and PCP asked)" : "\(gatewayOutcome); \(upnpOutcome)"
            verdict = Reachability(verdict: .closed, address: Reachability.endpoint(lanAddress, port), via: .none,
                                   advice: "\(asked): forward TCP and UDP port \(port) to \(lanAddress) on the router, or "
                                       + Reachability.useAStandingRendezvous)
        }
    }

    private mutating func reachable(at host: String, port external: UInt16, via: Reachability.Via, by name: String) {
        verdict = Reachability(verdict: .reachable, address: Reachability.endpoint(host, external), via: via,
                               advice: "the router forwards \(Reachability.endpoint(host, external)) to this machine (\(name)) until conf leaves")
    }

    private mutating func carrierGrade(_ why: String) {
        verdict = Reachability(verdict: .carrierGradeNAT, address: Reachability.endpoint(lanAddress, port), via: .none,
                               advice: "\(why): this network is behind carrier-grade NAT (or a second router), where a forwarded port cannot "
                                   + "help; others on this network can join; for anyone else, " + Reachability.useAStandingRendezvous)
    }
}
