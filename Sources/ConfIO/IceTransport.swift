internal import CGLib
internal import CConfShims
import ConfCore
import ConfWire

/// A STUN or TURN server for ICE, by IP address (libnice does not resolve names).
public struct IceServerAddress: Sendable, Equatable {
    public var host: String
    public var port: UInt16
    /// Present for TURN.
    public var credentials: (username: String, password: String)?
    /// TURN over TCP (RFC 6062's client side): reaches the server where UDP is blocked; the
    /// relayed media is still UDP from the server on.
    public var overTCP: Bool
    /// TURN over TLS (`turns:`): the name its certificate must carry. libnice cannot do TLS, so
    /// such a server reaches `IceTransport` as a `TURNOverTLSTunnel`'s loopback TCP port instead.
    public var tlsServerName: String?

    public init(host: String, port: UInt16, credentials: (username: String, password: String)? = nil, overTCP: Bool = false,
                tlsServerName: String? = nil) {
        self.host = host
        self.port = port
        self.credentials = credentials
        self.overTCP = overTCP || tlsServerName != nil
        self.tlsServerName = tlsServerName
    }

    /// The server's address and port, as written: "192.0.2.1:3478", "[2001:db8::1]:3478".
    public var endpoint: HostPort { HostPort(host: host, port: port) }

    public static func == (a: Self, b: Self) -> Bool {
        a.host == b.host && a.port == b.port && a.credentials?.username == b.credentials?.username
            && a.credentials?.password == b.credentials?.password && a.overTCP == b.overTCP && a.tlsServerName == b.tlsServerName
    }
}

/// One ICE transport (RFC 8445, full ICE, trickle) with libnice: one stream, one component
/// (BUNDLE and rtcp-mux), UDP. It gathers, checks and then moves datagrams; STUN never reaches
/// the owner, only DTLS and SRTP.
///
/// Threading: made and used on the `EventLoop` thread; every callback comes on it.
public final class IceTransport {
    public enum State: Sendable, Equatable {
        case checking, connected, failed
    }

    public struct SelectedPair: Sendable, Equatable {
        public var local: IceCandidate
        public var remote: IceCandidate
    }

    public var onCandidate: ((IceCandidate) -> Void)?
    public var onGatheringDone: (() -> Void)?
    public var onState: ((State) -> Void)?
    public var onSelectedPair: ((SelectedPair) -> Void)?
    public var onDatagram: (([UInt8]) -> Void)?

    private let agent: OpaquePointer
    private let stream: UInt32
    private var box: Unmanaged<IceBox>?
    /// What could not be sent yet because libnice had no pair selected (see `send`).
    private var backlog = DatagramBacklog()
    private let loop: EventLoop
    private let mapsPort: Bool
    private var portMapping: MediaPortMapping?
    /// libnice finished gathering while the router had not answered yet.
    private var gatheringDoneHeld = false
    public let localUfrag: String
    public let localPwd: String

    /// `addresses`: the local IP addresses to gather host candidates on (libnice skips loopback
    /// unless told; conf passes the machine's IPv4 and IPv6 addresses and 127.0.0.1).
    /// With `relayOnly`, only TURN relay candidates are gathered and used (WebRTC's "relay" ICE
    /// transport policy): peers never learn this machine's addresses.
    /// `credentials`: the local ufrag and password to use (the call engine chooses them, so that
    /// the offer can be written before the agent exists); libnice makes its own without.
    /// With `portMapping`, the router is asked to forward the port of the host candidate on the
    /// default route's address (`MediaPortMapping`: PCP, NAT-PMP, UPnP-IGD), and what it gives is
    /// offered as a server-reflexive candidate; gathering is done when it has answered.
    public init(loop: EventLoop, controlling: Bool, addresses: [String], servers: [IceServerAddress], relayOnly: Bool = false,
                portMapping: Bool = false, credentials: (ufrag: String, pwd: String)? = nil) throws(GLibError) {
        // Trickle ICE. Consent to send (RFC 7675) is kept by the owner, not by libnice: libnice's
        // consent and keepalive checks fail a working pair when one STUN transaction goes
        // unanswered, which at 30 % loss each way happens every 10-16 s and tore good calls
        // down. The owner stops sending after a few seconds without an authenticated packet
        // (SRTP, SRTCP or DTLS) from the peer, which is stricter than RFC 7675's 30 s and needs
        // no STUN answer. Keepalives are binding indications (RFC 8445 section 11).
        self.loop = loop
        agent = nice_agent_new_full(loop.context, NICE_COMPATIBILITY_RFC5245, NICE_AGENT_OPTION_ICE_TRICKLE)
        let object = UnsafeMutableRawPointer(agent)
        conf_object_set_boolean(object, "keepalive-conncheck", 0)
        // A check is sent up to 7 times (libnice's default is 4): at 30 % loss each way one
        // round trip in two fails, and 4 tries lost a pair about once in 15.
        conf_object_set_uint(object, "stun-max-retransmissions", 6)
        conf_object_set_boolean(object, "controlling-mode", controlling ? 1 : 0)
        conf_object_set_boolean(object, "ice-tcp", 0)
        // libnice's own UPnP asks for every host candidate and never stops when refused: see
        // `MediaPortMapping`, which does it instead.
        conf_object_set_boolean(object, "upnp", 0)
        mapsPort = portMapping && !relayOnly
        if relayOnly { conf_object_set_boolean(object, "force-relay", 1) }
        for address in addresses {
            var nice = NiceAddress()
            nice_address_init(&nice)
            if nice_address_set_from_string(&nice, address) != 0 { nice_agent_add_local_address(agent, &nice) }
        }
        if let stun = servers.first(where: { $0.credentials == nil }) {
            conf_object_set_string(object, "stun-server", stun.host)
            conf_object_set_uint(object, "stun-server-port", UInt32(stun.port))
        }
        stream = nice_agent_add_stream(agent, 1)
        for turn in servers {
            guard let credentials = turn.credentials else { continue }
            nice_agent_set_relay_info(agent, stream, 1, turn.host, UInt32(turn.port), credentials.username,
                                      credentials.password, turn.overTCP ? NICE_RELAY_TYPE_TURN_TCP : NICE_RELAY_TYPE_TURN_UDP)
        }
        if let credentials { nice_agent_set_local_credentials(agent, stream, credentials.ufrag, credentials.pwd) }
        var ufrag: UnsafeMutablePointer<gchar>?, pwd: UnsafeMutablePointer<gchar>?
        nice_agent_get_local_credentials(agent, stream, &ufrag, &pwd)
        localUfrag = ufrag.map { String(cString: $0) } ?? ""
        localPwd = pwd.map { String(cString: $0) } ?? ""
        g_free(ufrag)
        g_free(pwd)

        let box = Unmanaged.passRetained(IceBox(self))
        self.box = box
        let data = box.toOpaque()
        for (signal, handler) in [
            ("new-candidate-full", unsafeBitCast(onNewCandidate, to: GCallback.self)),
            ("candidate-gathering-done", unsafeBitCast(onGatheringDoneSignal, to: GCallback.self)),
            ("component-state-changed", unsafeBitCast(onComponentState, to: GCallback.self)),
            ("new-selected-pair-full", unsafeBitCast(onNewSelectedPair, to: GCallback.self)),
        ] {
            g_signal_connect_data(object, signal, handler, data, nil, GConnectFlags(rawValue: 0))
        }
        nice_agent_attach_recv(agent, stream, 1, loop.context, onReceive, data)
    }

    deinit { close(then: nil) }

    /// Starts gathering; candidates arrive through `onCandidate`, then `onGatheringDone`.
    public func gather() {
        nice_agent_gather_candidates(agent, stream)
    }

    public func setRemoteCredentials(ufrag: String, pwd: String) {
        nice_agent_set_remote_credentials(agent, stream, ufrag, pwd)
    }

    /// A trickled candidate of the peer's. Component-2 candidates (no rtcp-mux) are ignored.
    public func addRemote(_ candidate: IceCandidate) {
        guard candidate.component == 1, candidate.transport == "udp" else { return }
        guard let parsed = nice_agent_parse_remote_candidate_sdp(agent, stream, "a=" + candidate.description) else { return }
        let list = g_slist_append(nil, parsed)
        nice_agent_set_remote_candidates(agent, stream, 1, list)
        g_slist_free(list)
        nice_candidate_free(parsed)
    }

    public func remoteGatheringDone() {
        nice_agent_peer_candidate_gathering_done(agent, stream)
    }

    /// Datagrams dropped because they could not be sent before the backlog filled up.
    public var droppedDatagrams: Int { backlog.dropped }
    /// Datagrams waiting for a pair.
    public var queuedDatagrams: Int { backlog.count }

    /// Sends one datagram on the selected pair. Until libnice has selected one (a peer may start
    /// DTLS as soon as *its* side of ICE works, and our reply comes before our side does), DTLS is
    /// queued, bounded by `DatagramBacklog`, and sent in order once a pair works. SRTP and SRTCP
    /// are not: media sent late is worth nothing, and a sender report held back would make the
    /// peer's answer, and so the round trip measured from it, late by as long as it waited.
    /// They are dropped and counted.
    public func send(_ datagram: [UInt8]) {
        guard box != nil else { return }
        if backlog.isEmpty && transmit(datagram) { return }
        guard PacketKind(classifying: datagram) == .dtls else {
            droppedMedia += 1
            return
        }
        backlog.append(datagram)
        flushBacklog()
    }

    /// SRTP and SRTCP dropped because no pair was selected yet.
    public private(set) var droppedMedia = 0

    /// nice_agent_send returns the bytes sent, or -1 when there is no selected pair (or the
    /// socket would block).
    private func transmit(_ datagram: [UInt8]) -> Bool {
        datagram.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: gchar.self) { nice_agent_send(agent, stream, 1, UInt32(buffer.count), $0.baseAddress) }
        } >= 0
    }

    private func flushBacklog() {
        guard !backlog.isEmpty else { return }
        backlog.flush(transmit)
    }

    /// Stops everything; no callback follows. TURN allocations and the router's mapping are
    /// released in the background (`done` is called once the servers have been told, or at once
    /// when there are none).
    public func close(then done: (() -> Void)? = nil) {
        guard let box else {
            done?()
            return
        }
        self.box = nil
        backlog.removeAll()
        nice_agent_attach_recv(agent, stream, 1, nil, nil, nil)
        g_signal_handlers_disconnect_matched(UnsafeMutableRawPointer(agent), G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, box.toOpaque())
        box.release()
        // Done when both the TURN allocations and the router's mapping are let go.
        var waiting = 2
        let one = { waiting -= 1; if waiting == 0 { done?() } }
        if let portMapping {
            self.portMapping = nil
            portMapping.release { withExtendedLifetime(portMapping) {}; one() }
        } else {
            one()
        }
        // The async close keeps its own reference to the agent until the TURN refreshes are pruned.
        let closing = Unmanaged.passRetained(CallbackBox { one(); return false }).toOpaque()
        nice_agent_close_async(agent, onClosed, closing)
        g_object_unref(UnsafeMutableRawPointer(agent))
    }

    // MARK: libnice events

    fileprivate func candidate(_ nice: UnsafeMutablePointer<NiceCandidate>) {
        guard let candidate = convert(nice) else { return }
        onCandidate?(candidate)
        if mapsPort, portMapping == nil { mapPort(of: candidate) }
    }

    fileprivate func gatheringDone() {
        if portMapping?.isSettled == false {
            gatheringDoneHeld = true
        } else {
            onGatheringDone?()
        }
    }

    private func mapPort(of candidate: IceCandidate) {
        portMapping = MediaPortMapping(loop: loop, base: candidate, onSettled: { [weak self] mapped in
            guard let self, self.box != nil else { return }
            if let mapped { self.onCandidate?(mapped) }
            if self.gatheringDoneHeld {
                self.gatheringDoneHeld = false
                self.onGatheringDone?()
            }
        }, onLateCandidate: { [weak self] mapped in
            guard let self, self.box != nil else { return }
            self.onCandidate?(mapped)
        })
    }

    fileprivate func componentState(_ state: UInt32) {
        switch state {
        case NICE_COMPONENT_STATE_CONNECTING.rawValue: onState?(.checking)
        // CONNECTED: a pair works and can carry data; READY: nomination is done too. DTLS may
        // start on the first, which saves a round of checks.
        case NICE_COMPONENT_STATE_CONNECTED.rawValue, NICE_COMPONENT_STATE_READY.rawValue:
            flushBacklog()
            onState?(.connected)
        case NICE_COMPONENT_STATE_FAILED.rawValue: onState?(.failed)
        default: break
        }
    }

    fileprivate func selectedPair(_ local: UnsafeMutablePointer<NiceCandidate>?, _ remote: UnsafeMutablePointer<NiceCandidate>?) {
        flushBacklog()
        guard let local, let remote, let l = convert(local), let r = convert(remote) else { return }
        onSelectedPair?(SelectedPair(local: l, remote: r))
    }

    fileprivate func received(_ bytes: UnsafeMutablePointer<gchar>?, _ count: UInt32) {
        guard let bytes, count > 0 else { return }
        onDatagram?(Array(UnsafeRawBufferPointer(start: bytes, count: Int(count)).bindMemory(to: UInt8.self)))
    }

    private func convert(_ nice: UnsafeMutablePointer<NiceCandidate>) -> IceCandidate? {
        guard let sdp = nice_agent_generate_local_candidate_sdp(agent, nice) else { return nil }
        defer { g_free(sdp) }
        return try? IceCandidate.parse(String(cString: sdp)).get()
    }
}

private final class IceBox {
    unowned let transport: IceTransport
    init(_ transport: IceTransport) { self.transport = transport }
}

private func transport(_ data: UnsafeMutableRawPointer?) -> IceTransport {
    Unmanaged<IceBox>.fromOpaque(data!).takeUnretainedValue().transport
}

// Signatures from agent.h.
private let onNewCandidate: @convention(c) (OpaquePointer?, UnsafeMutablePointer<NiceCandidate>?, UnsafeMutableRawPointer?) -> Void = {
    _, candidate, data in
    if let candidate { transport(data).candidate(candidate) }
}

private let onGatheringDoneSignal: @convention(c) (OpaquePointer?, UInt32, UnsafeMutableRawPointer?) -> Void = { _, _, data in
    transport(data).gatheringDone()
}

private let onComponentState: @convention(c) (OpaquePointer?, UInt32, UInt32, UInt32, UnsafeMutableRawPointer?) -> Void = {
    _, _, _, state, data in
    transport(data).componentState(state)
}

private let onNewSelectedPair: @convention(c) (OpaquePointer?, UInt32, UInt32, UnsafeMutablePointer<NiceCandidate>?,
                                               UnsafeMutablePointer<NiceCandidate>?, UnsafeMutableRawPointer?) -> Void = {
    _, _, _, local, remote, data in
    transport(data).selectedPair(local, remote)
}

private let onClosed: GAsyncReadyCallback = { _, _, data in
    _ = Unmanaged<CallbackBox>.fromOpaque(data!).takeRetainedValue().body()
}

private let onReceive: NiceAgentRecvFunc = { _, _, _, count, bytes, data in
    transport(data).received(bytes, count)
}
