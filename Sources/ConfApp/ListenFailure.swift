import ConfIO
import ConfWire

/// What to say when a rendezvous (`conf rendezvous`, or the one inside `conf host`) cannot listen:
/// the cause seen, and the next step that fits it. (An address not on this machine is refused
/// before, by `CommandContext.listenEndpoint`.)
enum ListenFailure {
    static func words(_ error: GLibError, endpoint: HostPort) -> String {
        if error.isAddressInUse {
            return "cannot listen on \(endpoint): something else holds port \(endpoint.port) (another conf host or conf rendezvous? "
                + "ss -ltnp says which) — stop it, or choose another port with --listen :\(endpoint.port == 65535 ? 7374 : endpoint.port + 1)"
        }
        if endpoint.port != 0, endpoint.port < 1024 {
            return "cannot listen on \(endpoint): \(error.message) — ports under 1024 need root or CAP_NET_BIND_SERVICE; choose a port over 1023 with --listen"
        }
        return "cannot listen on \(endpoint): \(error.message)"
    }
}
