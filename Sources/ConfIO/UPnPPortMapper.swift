internal import CGLib
import ConfWire

/// Asks UPnP-IGD routers on the LAN to forward ports to this machine, through GUPnP-IGD's
/// `GUPnPSimpleIgd`: it finds the routers (SSDP), adds each mapping, learns the external address,
/// and renews the lease until the mapping is released.
///
/// GUPnP-IGD never says that no router answered: the caller gives up after a while of its own.
/// Releasing sends DeletePortMapping for every mapping made; the object is finalized only once
/// the router has answered each one (or GUPnP's request timeout, 5 s, has passed), which is when
/// `release` calls back.
///
/// Threading: made and used on the loop's thread (GUPnP attaches to the thread-default context,
/// which `EventLoop` made its own).
public final class UPnPPortMapper {
    public enum Event: Equatable, Sendable {
        /// A router forwards `externalPort` at `externalAddress` to our `localPort`. The address
        /// is what the router says it is: empty or private when the router itself sits behind
        /// another NAT.
        case mapped(protocol: PortProtocol, localPort: UInt16, externalAddress: String, externalPort: UInt16)
        /// A router refused, in its own words (GUPnP's error message, bounded and cleaned).
        case failed(protocol: PortProtocol, localPort: UInt16, reason: String)
        /// A router answered but could not tell its external address (GetExternalIPAddress
        /// failed or was empty): it has none of its own.
        case noExternalAddress
    }

    public enum PortProtocol: String, Sendable { case tcp = "TCP", udp = "UDP" }

    private let loop: EventLoop
    private var igd: UnsafeMutablePointer<GUPnPSimpleIgd>?
    private let onEvent: (Event) -> Void

    public init(loop: EventLoop, onEvent: @escaping (Event) -> Void) {
        self.loop = loop
        self.onEvent = onEvent
        igd = gupnp_simple_igd_new()
        guard let igd else { return }
        let box = UPnPSignalBox(self)
        connectSignal(UnsafeMutableRawPointer(igd), "mapped-external-port", onMappedExternalPort, box: box)
        connectSignal(UnsafeMutableRawPointer(igd), "error-mapping-port", onErrorMappingPort, box: box)
    }

    deinit {
        if let igd { g_object_unref(UnsafeMutableRawPointer(igd)) }
    }

    /// Asks every router found for `externalPort` (0: any) forwarded to `localAddress`:`localPort`,
    /// for `lease` seconds, renewed by GUPnP before it runs out (as PCP's and NAT-PMP's, short, so
    /// that a killed host's mapping goes within minutes).
    public func add(_ proto: PortProtocol, localAddress: String, localPort: UInt16, externalPort: UInt16,
                    lease: UInt32 = PortMappingSession.requestedLifetime,
                    description: String = "conf") {
        guard let igd else { return }
        gupnp_simple_igd_add_port(igd, proto.rawValue, externalPort, localAddress, localPort, lease, description)
    }

    /// Deletes every mapping made and calls `done` once the routers have answered, or after
    /// `grace` at the latest. Nothing more is reported.
    public func release(grace: Duration = .seconds(2), done: @escaping () -> Void) {
        guard let igd else { return done() }
        self.igd = nil
        let finish = OnceCallback(done)
        g_object_weak_ref(UnsafeMutablePointer(OpaquePointer(igd)), onFinalized, Unmanaged.passRetained(finish).toOpaque())
        g_object_unref(UnsafeMutableRawPointer(igd))  // sends the deletes; finalized when they are answered
        loop.schedule(after: grace) { finish.call() }
    }

    fileprivate func report(_ event: Event) { onEvent(event) }
}

private final class UPnPSignalBox {
    weak var mapper: UPnPPortMapper?
    init(_ mapper: UPnPPortMapper) { self.mapper = mapper }
}

private func text(_ pointer: UnsafePointer<CChar>?, limit: Int = 200) -> String {
    guard let pointer else { return "" }
    // The router's words (GUPnP passes on its SOAP fault text): bounded, printable ASCII only.
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: min(strlen(pointer), limit))
    return String(decoding: bytes.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
}

private let onMappedExternalPort: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                  UInt32, UnsafePointer<CChar>?, UInt32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
    _, proto, externalIP, _, externalPort, _, localPort, _, data in
    guard let data, let mapper = Unmanaged<UPnPSignalBox>.fromOpaque(data).takeUnretainedValue().mapper,
          let proto = UPnPPortMapper.PortProtocol(rawValue: text(proto)) else { return }
    mapper.report(.mapped(protocol: proto, localPort: UInt16(truncatingIfNeeded: localPort), externalAddress: text(externalIP, limit: 45),
                          externalPort: UInt16(truncatingIfNeeded: externalPort)))
}

private let onErrorMappingPort: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GError>?, UnsafePointer<CChar>?, UInt32,
                                                UnsafePointer<CChar>?, UInt32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
    _, error, proto, _, _, localPort, _, data in
    guard let data, let mapper = Unmanaged<UPnPSignalBox>.fromOpaque(data).takeUnretainedValue().mapper,
          let proto = UPnPPortMapper.PortProtocol(rawValue: text(proto)) else { return }
    if let error, error.pointee.domain == gupnp_simple_igd_error_quark(), error.pointee.code == Int32(GUPNP_SIMPLE_IGD_ERROR_EXTERNAL_ADDRESS.rawValue) {
        return mapper.report(.noExternalAddress)
    }
    let reason = error.map { text($0.pointee.message) } ?? "no reason given"
    mapper.report(.failed(protocol: proto, localPort: UInt16(truncatingIfNeeded: localPort), reason: reason.isEmpty ? "no reason given" : reason))
}

private let onFinalized: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GObject>?) -> Void = { data, _ in
    guard let data else { return }
    Unmanaged<OnceCallback>.fromOpaque(data).takeRetainedValue().call()
}
