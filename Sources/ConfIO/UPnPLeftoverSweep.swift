/// Deletes UPnP-IGD mappings that a dead conf of this machine left (`PortMappingLeftovers`).
/// GUPnP-IGD deletes only mappings it made itself, so the sweep asks the routers for each one
/// again (same external port, same internal address and port: a router takes that as a renewal
/// of the mapping it holds, UPnP-IGD's AddPortMapping) with a short lease, then releases them all.
/// A mapping the router refuses is not ours to delete (another machine holds the port now).
///
/// `done` is called once: when every mapping was answered and released, or after `patience` and
/// the release's grace when no router answered.
///
/// Threading: made and used on the loop's thread.
final class UPnPLeftoverSweep {
    static let patience: Duration = .seconds(4)
    /// The lease asked for while taking a mapping over, should the deletion be lost.
    static let lease: UInt32 = 60

    private let loop: EventLoop
    private var mapper: UPnPPortMapper?
    private var unanswered: Int
    private var timer: Timer?
    private let done: OnceCallback

    init(loop: EventLoop, mappings: [PortMappingLeftovers.UPnPMapping], patience: Duration = UPnPLeftoverSweep.patience,
         done: @escaping () -> Void) {
        self.loop = loop
        self.done = OnceCallback(done)
        unanswered = mappings.count
        mapper = UPnPPortMapper(loop: loop) { [weak self] event in self?.answered(event) }
        for mapping in mappings {
            mapper?.add(mapping.proto, localAddress: mapping.localAddress, localPort: mapping.localPort,
                        externalPort: mapping.externalPort, lease: Self.lease, description: "conf, left by a process that ended")
        }
        timer = loop.schedule(after: patience) { [weak self] in self?.release() }
    }

    private func answered(_ event: UPnPPortMapper.Event) {
        switch event {
        case .mapped, .failed: unanswered -= 1
        case .noExternalAddress: break
        }
        // Not from inside GUPnP-IGD's signal: releasing disposes of the object that emits it.
        if unanswered <= 0 { timer?.cancel(); timer = loop.schedule(after: .zero) { [weak self] in self?.release() } }
    }

    private func release() {
        timer?.cancel()
        timer = nil
        guard let mapper else { return }
        self.mapper = nil
        let done = self.done
        mapper.release { done.call() }
    }
}
