import ConfCore

/// ICE that works one way only. Under heavy loss one agent's checks can all go unanswered while
/// the other's are answered: the side that succeeded stops checking (its pair works), and libnice
/// on the other side keeps waiting for candidates that never come. Neither side can then finish
/// DTLS (each needs its own pair to send on), and the link hangs until the connect timeout;
/// measured with libnice at 30 % loss each way on namespaces, about one set-up in twenty.
///
/// The offerer, who alone can set a link up again, gives it fresh agents and a new offer when its
/// set-up shows no progress for `setupStallLimit`: its own ICE not connected that long after the
/// answer (whatever came from the peer: libnice passes on what arrives before it has a pair, so
/// the peer's DTLS may be heard while ours cannot go out), or connected that long with nothing
/// of DTLS from the peer. The peer answers the new offer as for any restart (ConfSession.Mesh);
/// nobody is told of a link that never came up.
/// At most `maxStallRestarts` times for one set-up; a link that connects starts the count again.
extension CallEngine {
    static let maxStallRestarts = 2

    /// Set-ups that take longer than this without progress are stalled: a third of the connect
    /// timeout, at least 4 s (ICE took at most 4.2 s in 40 set-ups at 30 % loss each way).
    var setupStallLimit: Duration { max(.seconds(4), configuration.connectTimeout / 3) }

    /// When the link's set-up will count as stalled, if it is still where it is now.
    func stallDeadline(of link: Link) -> Instant? {
        guard link.phase == .negotiating, let negotiatedAt = link.negotiatedAt,
              peerSlots[link.id, default: PeerSlot()].stallRestarts < Self.maxStallRestarts, mesh?.isOfferer(to: link.id) == true else { return nil }
        guard let iceConnectedAt = link.iceConnectedAt else { return negotiatedAt + setupStallLimit }
        return link.heardDTLS ? nil : iceConnectedAt + setupStallLimit
    }

    func restartIfStalled(_ link: Link, now: Instant) {
        guard let deadline = stallDeadline(of: link), now >= deadline else { return }
        let id = link.id
        peerSlots[id, default: PeerSlot()].stalled()
        outputs.append(.note(.setupStalled(link.peer, after: setupStallLimit, peerSide: link.iceConnected)))
        // Silently: the peer learns of it from the new offer, and has nothing to report either.
        link.end()
        teardown(link, tellingThePeer: false)
        mesh?.restart(id)
        drainMesh(now: now)
    }
}
