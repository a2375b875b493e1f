internal import CGLib
#if canImport(Glibc)
import Glibc
#endif

/// An IP address and port as the kernel gives them: the raw address bytes (4 or 16) and the port.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: [UInt8]
    public var port: UInt16

    public init(address: [UInt8], port: UInt16) {
        self.address = address
        self.port = port
    }

    /// From an IPv4 or IPv6 address in text; nil for anything else.
    public init?(_ text: String, port: UInt16) {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            address = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            address = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
        self.port = port
    }

    public var isIPv4: Bool { address.count == 4 }

    /// The address alone, as text ("192.0.2.1", "2001:db8::1").
    public var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        address.withUnsafeBytes { _ = inet_ntop(isIPv4 ? AF_INET : AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { isIPv4 ? "\(host):\(port)" : "[\(host)]:\(port)" }

    /// An IPv4 address that an IPv6 socket shows as ::ffff:a.b.c.d, as IPv4.
    var unmapped: SocketAddress {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF else { return self }
        return SocketAddress(address: Array(address[12...]), port: port)
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        if isIPv4 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: address) }
            return withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        sin6.sin6_port = port.bigEndian
        withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: address) }
        return withUnsafePointer(to: &sin6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
    }

    init?(_ storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            var raw = sin.sin_addr
            self.init(address: withUnsafeBytes(of: &raw) { Array($0) }, port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            var raw = sin6.sin6_addr
            self.init(address: withUnsafeBytes(of: &raw) { Array($0) }, port: UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
    }
}

/// A non-blocking UDP socket read on the event loop: each datagram that arrives is handed to
/// `onDatagram` with its sender. Used for the services that are not ICE: the rendezvous's STUN
/// answers and the port-mapping requests to the router.
///
/// Threading: made, used and closed on the loop's thread.
public final class UDPSocket {
    public let fd: Int32
    public let port: UInt16
    private var watch: Timer?
    private var buffer = [UInt8](repeating: 0, count: 2048)

    /// Binds `host` ("::" for every address, IPv6 and IPv4, falling back to IPv4 where IPv6 is
    /// off; "localhost" is 127.0.0.1) and `port` (0 for any). With `reusePort`, other sockets with
    /// it may bind the same port (the rendezvous's processes): the kernel spreads datagrams.
    public init(host: String, port: UInt16, reusePort: Bool = false) throws(GLibError) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        guard var local = SocketAddress(literal, port: port) else {
            throw GLibError(domain: "conf", code: 0, message: "'\(host)' is not an IP address of this machine")
        }
        var fd = socket(local.isIPv4 ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0, literal == "::" {
            local = SocketAddress(address: [0, 0, 0, 0], port: port)
            fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        guard fd >= 0 else { throw Self.error("cannot make a UDP socket") }
        var on: Int32 = 1, off: Int32 = 0
        if !local.isIPv4 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size)) }
        if reusePort {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        guard local.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let failure = Self.error("cannot bind UDP \(local)")
            Glibc.close(fd)
            throw failure
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.fd = fd
        self.port = SocketAddress(bound)?.port ?? port
    }

    deinit {
        watch?.cancel()
        Glibc.close(fd)
    }

    /// Starts handing datagrams to `onDatagram` on `loop`, until `close()`.
    public func receive(on loop: EventLoop, _ onDatagram: @escaping (_ bytes: ArraySlice<UInt8>, _ from: SocketAddress) -> Void) {
        // Weak, and held for the whole callback: a datagram's handler may release the socket's
        // owner (an answer that ends what the socket was for), which must not free it mid-read.
        watch = loop.watch(fd: fd) { [weak self] in
            guard let self else { return false }
            // Drain what is queued; each datagram is handled before the next is read.
            for _ in 0..<64 where watch != nil {
                var from = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let count = buffer.withUnsafeMutableBytes { bytes in
                    withUnsafeMutablePointer(to: &from) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, bytes.baseAddress, bytes.count, 0, $0, &length) }
                    }
                }
                guard count >= 0 else { break }  // EAGAIN: drained (errors such as ECONNREFUSED are dropped too)
                guard let sender = SocketAddress(from) else { continue }
                onDatagram(buffer[0..<count], sender.unmapped)
            }
            return true
        }
    }

    /// Sends one datagram; false when the kernel refused it (no route, buffer full).
    @discardableResult
    public func send(_ bytes: [UInt8], to destination: SocketAddress) -> Bool {
        let target = isIPv6Socket && destination.isIPv4
            ? SocketAddress(address: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + destination.address, port: destination.port) : destination
        return bytes.withUnsafeBytes { payload in target.withSockaddr { sendto(fd, payload.baseAddress, payload.count, Int32(MSG_NOSIGNAL), $0, $1) } } == bytes.count
    }

    /// Asks for a receive queue of `bytes` (the kernel caps it at net.core.rmem_max): a server
    /// that a flood keeps busy then drops fewer of everyone's datagrams while it catches up.
    public func growReceiveBuffer(to bytes: Int32 = 1 << 20) {
        var size = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Joins the IPv4 multicast group `group` (an IPv4 socket) on the interface with address
    /// `interface` (nil: the one the kernel routes the group to); false when refused.
    @discardableResult
    public func joinMulticastGroup(_ group: [UInt8], interface: [UInt8]? = nil) -> Bool {
        guard group.count == 4, interface.map({ $0.count == 4 }) ?? true else { return false }
        func inAddress(_ bytes: [UInt8]) -> in_addr { in_addr(s_addr: bytes.withUnsafeBytes { $0.load(as: UInt32.self) }) }
        var request = ip_mreq(imr_multiaddr: inAddress(group), imr_interface: inAddress(interface ?? [0, 0, 0, 0]))
        return setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreq>.size)) == 0
    }

    /// Stops reading; the descriptor is closed when the socket is released.
    public func close() {
        watch?.cancel()
        watch = nil
    }

    private var isIPv6Socket: Bool {
        var domain: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length)
        return domain == AF_INET6
    }

    private static func error(_ what: String) -> GLibError {
        GLibError(domain: "conf", code: errno, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
