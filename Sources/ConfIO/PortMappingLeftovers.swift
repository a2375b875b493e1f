import ConfCore
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// What a conf process that dies without deleting its router mappings (SIGKILL, a crash, a power
/// cut) leaves behind, and its clearing by the next conf on this machine. Each `RouterPortMapping`
/// that holds a PCP or NAT-PMP mapping keeps, in a private file of this user's
/// (`DIR/port-mappings-PID-N`), the gateway and the datagrams that delete its mappings (a PCP
/// mapping is deleted only with its nonce), and the UPnP-IGD mappings it holds; the file goes when
/// the mappings are released. At start, `conf host` and `conf join` send the datagrams of every
/// file whose process is gone, and take each UPnP-IGD mapping over and delete it
/// (`UPnPLeftoverSweep`: GUPnP-IGD deletes only mappings it made, and a router lets the same
/// internal address and port ask again for an external port it holds); the file is removed.
/// While that runs, this process's own UPnP-IGD requests wait (`whenSwept`), so that the sweep
/// never deletes a mapping just made for the same port.
///
/// Threading: the loop's thread.
public enum PortMappingLeftovers {
    /// Where the files are: set once at start by the command that maps ports; nil keeps none.
    nonisolated(unsafe) public static var directory: String?
    nonisolated(unsafe) private static var made = 0
    nonisolated(unsafe) private static var sweep: UPnPLeftoverSweep?
    nonisolated(unsafe) private static var afterSweep: [() -> Void] = []

    /// One UPnP-IGD mapping, as a file keeps it: `upnp PROTOCOL EXTERNAL-PORT ADDRESS LOCAL-PORT`.
    public struct UPnPMapping: Equatable, Sendable {
        public var proto: UPnPPortMapper.PortProtocol
        public var externalPort: UInt16
        public var localAddress: String
        public var localPort: UInt16

        var line: String { "upnp \(proto.rawValue) \(externalPort) \(localAddress) \(localPort)" }

        init(proto: UPnPPortMapper.PortProtocol, externalPort: UInt16, localAddress: String, localPort: UInt16) {
            (self.proto, self.externalPort, self.localAddress, self.localPort) = (proto, externalPort, localAddress, localPort)
        }

        init?(line: String) {
            let words = line.split(separator: " ")
            guard words.count == 5, words[0] == "upnp", let proto = UPnPPortMapper.PortProtocol(rawValue: String(words[1])),
                  let external = UInt16(words[2]), external > 0, IPv4Address(String(words[3])) != nil,
                  let local = UInt16(words[4]), local > 0 else { return nil }
            self.init(proto: proto, externalPort: external, localAddress: String(words[3]), localPort: local)
        }
    }

    /// Keeps this process's files in `directory` (made private if missing; refused if another
    /// user could write to it) and clears what dead ones left there: PCP and NAT-PMP mappings at
    /// once, UPnP-IGD ones on `loop` within seconds.
    public static func start(in directory: String, loop: EventLoop) {
        guard (try? PrivateStateFile.makeDirectories(directory)) != nil else { return }
        self.directory = directory
        let route = DefaultRoute.current()
        var upnp: [UPnPMapping] = []
        for mapping in clear(gateway: route?.gateway) where mapping.localAddress == route?.localAddress && !upnp.contains(mapping) {
            upnp.append(mapping)
        }
        guard !upnp.isEmpty else { return }
        sweep = UPnPLeftoverSweep(loop: loop, mappings: upnp) {
            sweep = nil
            let waiting = afterSweep
            afterSweep = []
            for action in waiting { action() }
        }
    }

    /// Runs `action` once no sweep of UPnP-IGD leftovers is under way (at once if none is).
    static func whenSwept(_ action: @escaping () -> Void) {
        if sweep == nil { action() } else { afterSweep.append(action) }
    }

    /// A file's name for this process, for one mapping owner.
    static func newName() -> String {
        made += 1
        return "port-mappings-\(getpid())-\(made)"
    }

    /// Writes (or replaces) what deletes this owner's mappings at `gateway`: PCP or NAT-PMP
    /// `deletions`, and `upnp` mappings.
    static func record(_ name: String, gateway: String, deletions: [[UInt8]], upnp: [UPnPMapping]) {
        guard let directory else { return }
        guard !deletions.isEmpty || !upnp.isEmpty else { return forget(name) }
        let text = ([gateway] + deletions.map(Hex.string) + upnp.map(\.line)).joined(separator: "\n") + "\n"
        let path = directory + "/" + name, temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        let written = write(fd, text, text.utf8.count) == text.utf8.count
        close(fd)
        if written { rename(temporary, path) } else { unlink(temporary) }
    }

    static func forget(_ name: String) {
        guard let directory else { return }
        unlink(directory + "/" + name)
    }

    /// Sends the deletions of every file whose process is gone and whose gateway is `gateway`
    /// (this machine's now: another network's mappings are not this router's to delete), and
    /// removes the file; a file older than the mappings' lifetime goes unsent. Returns the
    /// UPnP-IGD mappings the files held, for the caller to delete.
    static func clear(gateway current: String?) -> [UPnPMapping] {
        guard let directory, let entries = try? directoryEntries(directory) else { return [] }
        var upnp: [UPnPMapping] = []
        for name in entries where name.hasPrefix("port-mappings-") && !name.hasSuffix(".new") {
            let parts = name.split(separator: "-")
            guard parts.count == 4, let pid = pid_t(parts[2]), pid != getpid(), !isConf(pid) else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if time(nil) - info.st_mtim.tv_sec > Int(PortMappingSession.requestedLifetime) {
                unlink(path)  // expired at the router by now
                continue
            }
            // Ours (the directory is this user's, checked), but read as bounded text all the same.
            guard let bytes = try? PrivateStateFile.read(path, limit: 16_384) else { continue }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
            guard let gatewayText = lines.first, gatewayText == current else { continue }
            unlink(path)
            upnp += lines.dropFirst().prefix(16).compactMap(UPnPMapping.init(line:))
            guard let gateway = SocketAddress(gatewayText, port: 5351), gateway.isIPv4,
                  let socket = try? UDPSocket(host: "0.0.0.0", port: 0) else { continue }
            for line in lines.dropFirst().prefix(16) where !line.hasPrefix("upnp ") {
                guard line.utf8.count <= 2_200, let datagram = Hex.bytes(line, count: line.utf8.count / 2) else { continue }
                socket.send(datagram, to: gateway)
                socket.send(datagram, to: gateway)  // once more: no answer is awaited
            }
            socket.close()
        }
        return upnp
    }

    /// Whether process `pid` runs and is a conf (its name), so that its mappings are still its own.
    static func isConf(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &buffer, buffer.count)
        return count > 0 && String(decoding: buffer.prefix(count), as: UTF8.self).hasPrefix("conf")
    }

    private static func directoryEntries(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else { throw PortMappingLeftoversError() }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            names.append(name)
        }
        return names
    }
}

private struct PortMappingLeftoversError: Error {}
