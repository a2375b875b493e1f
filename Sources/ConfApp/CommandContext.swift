import ConfCLI
import ConfCore
import ConfDriver
import ConfIO
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// A parsed invocation with its environment and config file: typed, validated settings for the
/// commands. Every problem is a `CommandFailure` with exit status 2 that names the setting.
struct CommandContext {
    let invocation: Invocation
    let environment: [String: String]
    let config: ConfigFile

    init(invocation: Invocation, environment: [String: String]) throws(CommandFailure) {
        self.invocation = invocation
        self.environment = environment
        config = try Self.loadConfig(environment: environment)
    }

    var json: Bool { invocation.flag("json") }

    /// The command's reporter, on the system's clocks (its events' `t` counts from now).
    func reporter() -> EventReporter {
        EventReporter(json: json, environment: environment, clock: SystemClock(), wallClock: SystemWallClock())
    }

    func setting(_ long: String) -> String? {
        invocation.setting(long, environment: environment, config: config)?.value
    }

    /// A repeatable option's values: every one given on the command line, else the words of its
    /// environment variable or config file key (separated by spaces: `CONF_STUN="a:3478 b:3478"`).
    func settings(_ long: String) -> [String] {
        let given = invocation.values(long)
        guard given.isEmpty, let text = setting(long) else { return given }
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// Names where a setting came from, for error messages.
    func origin(_ long: String) -> String {
        switch invocation.setting(long, environment: environment, config: config)?.source {
        case .environment(let variable): variable
        case .configFile: "\(Self.configPath(environment) ?? "config file") (\(long))"
        default: "--\(long)"
        }
    }

    func usage(_ message: String) -> CommandFailure { CommandFailure(.usage, code: "usage", message) }

    /// `--duration` as a positive number of seconds.
    func duration() throws(CommandFailure) -> Duration? {
        guard let text = setting("duration") else { return nil }
        guard let seconds = Double(text), seconds > 0, seconds < 1e9 else {
            throw usage("--duration '\(text)': give a positive number of seconds, like 30 or 2.5")
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// `--as`, else $USER, else "guest".
    func participantName() throws(CommandFailure) -> String {
        let name = setting("as") ?? environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "guest"
        if let problem = Names.problem(withParticipantName: name) { throw usage("\(origin("as")): \(problem)") }
        return name
    }

    /// `--ca` as a readable file, or nil; a relative path is made absolute from the working directory.
    func caFile() throws(CommandFailure) -> String? {
        guard let ca = setting("ca") else { return nil }
        var info = stat()
        guard stat(ca, &info) == 0, access(ca, R_OK) == 0 else {
            throw usage("\(origin("ca")) \(ca): cannot read it (\(String(cString: strerror(errno)))) — give a PEM file of certificates to trust")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw usage("\(origin("ca")) \(ca): not a file — give a PEM file of certificates to trust")
        }
        guard !ca.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return ca }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + ca
    }

    func rendezvousAddress() throws(CommandFailure) -> RendezvousAddress? {
        guard let text = setting("server") else { return nil }
        switch RendezvousAddress.parse(text) {
        case .success(var address):
            // A certificate named means TLS, whichever way the address was written.
            if try fingerprint() != nil { address.secure = true }
            if !address.secure && !address.isLoopback {
                Console.err("conf: warning: \(origin("server")) \(text) is plain ws://: the pin, names and call set-up cross the network in clear — "
                            + "leave out ws:// to use TLS")
            }
            return address
        case .failure(let problem): throw usage("\(origin("server")) \(problem)")
        }
    }

    /// `--port-mapping`: whether to ask the router to forward ports (on unless said off).
    func portMapping() throws(CommandFailure) -> Bool {
        switch setting("port-mapping") {
        case nil, "on": return true
        case "off": return false
        case let other?: throw usage("\(origin("port-mapping")) '\(other)': use on or off")
        }
    }

    /// `--fingerprint`: the rendezvous certificate to trust, and no other.
    func fingerprint() throws(CommandFailure) -> ServerFingerprint? {
        guard let text = setting("fingerprint") else { return nil }
        guard let fingerprint = ServerFingerprint(text) else { throw usage("\(origin("fingerprint")) '\(text)': \(ServerFingerprint.form)") }
        return fingerprint
    }

    /// A client for the rendezvous at `address`, trusting the certificate `pinned` names (by
    /// default `--fingerprint`'s), else `--ca` when given, through the proxy the environment names.
    func rendezvousClient(_ address: RendezvousAddress, pinned: ServerFingerprint? = nil) throws(CommandFailure) -> RendezvousClient {
        let ca = try caFile()
        let named = try fingerprint()
        let pin = pinned ?? named
        let proxy = RendezvousProxy.from(environment: environment, secure: address.secure)
        do {
            return try RendezvousClient(address: address, trusting: ca, pinned: pin, proxy: proxy)
        } catch {
            let why = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
            throw usage("\(origin("ca")) \(ca ?? ""): \(why) — give a PEM file of certificates to trust")
        }
    }

    func endpoint(_ long: String, default fallback: String, defaultHost: String = "0.0.0.0") throws(CommandFailure) -> HostPort {
        let text = setting(long) ?? fallback
        switch HostPort.parse(text, defaultHost: defaultHost) {
        case .success(let endpoint): return endpoint
        case .failure(let problem): throw usage("\(origin(long)) \(problem)")
        }
    }

    /// Where to listen: an IP address of this machine (or localhost) and a port, checked before
    /// anything is started. No address (`:7373`) is every interface, IPv6 and IPv4.
    func listenEndpoint() throws(CommandFailure) -> HostPort {
        let fallback = ConfProgram.defaultListen
        let endpoint = try endpoint("listen", default: fallback, defaultHost: "::")
        let isAddress = endpoint.host == "localhost" || HostResolver.isAddressLiteral(endpoint.host)
        guard isAddress else {
            throw usage("\(origin("listen")) '\(setting("listen") ?? fallback)': '\(endpoint.host)' is not an IP address; "
                        + "give an address of this machine and a port, like [::]:7373 (every interface), 0.0.0.0:7373 (every IPv4 one) or 127.0.0.1:7373")
        }
        // The wildcards are every interface, whatever this machine has (the listener falls back to
        // IPv4 where IPv6 is off).
        let wildcard = endpoint.host == "::" || endpoint.host == "0.0.0.0"
        guard wildcard || endpoint.host == "localhost" || HostResolver.isLocalAddress(endpoint.host) else {
            throw usage("\(origin("listen")) '\(setting("listen") ?? fallback)': \(endpoint.host) is not an address of this machine "
                        + "(ip -brief address lists them); give one of them, or [::]:\(endpoint.port) for every interface")
        }
        return endpoint
    }

    func positiveInteger(_ long: String, default fallback: Int) throws(CommandFailure) -> Int {
        guard let text = setting(long) else { return fallback }
        guard let value = Int(text), value > 0 else { throw usage("--\(long) '\(text)': give a positive whole number") }
        return value
    }

    // MARK: Config file

    static func configPath(_ environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/conf/config" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/conf/config" }
        return nil
    }

    static func loadConfig(environment: [String: String]) throws(CommandFailure) -> ConfigFile {
        guard let path = configPath(environment) else { return ConfigFile() }
        guard let text = SmallTextFile.read(path) else { return ConfigFile() }
        do {
            return try ConfigFile.parse(text, path: path, allowedKeys: ConfProgram.program.configurableKeys)
        } catch {
            throw CommandFailure(.usage, code: "usage", "config file \(error)")
        }
    }
}
