internal import CConfShims

/// The process's descriptor limit (RLIMIT_NOFILE).
public enum DescriptorLimit {
    /// Raises the soft limit to the hard one and returns the soft limit now in force. Most
    /// systems start processes with a soft limit of 1024, which a rendezvous under load (or
    /// under a flood of slow connections) reaches; the hard limit is what the administrator allows.
    @discardableResult
    public static func raiseToHard() -> Int { conf_raise_descriptor_limit() }

    /// Descriptors a `RendezvousServer` leaves for everything else in the process (its listening
    /// sockets, GLib's wakeup descriptors, and in `conf host` the call's ICE sockets, sound
    /// server connection, camera and recordings).
    public static let reserve = 256

    /// How many client connections a server in this process may hold: the soft limit less
    /// `reserve`, and never fewer than 16.
    public static var connectionBudget: Int { max(16, Int(conf_descriptor_limit()) - reserve) }
}
