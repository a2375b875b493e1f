import ConfCore
import ConfWire

/// Without the rendezvous: reconnecting with backoff, taking the seat back, or going on detached
/// with the links that are up.
extension RendezvousSession {
    /// The connection to the rendezvous broke while in the room (or again while resuming): the
    /// links stay, we reconnect.
    func lost(_ why: CallEvent.RendezvousLoss, now: Instant) {
        let wasInRoom = phase == .inRoom
        phase = .away
        nextPingAt = nil
        if wasInRoom { emit(.rendezvousLost(rendezvous: rendezvousName, reason: why)) }
        guard resumeToken != nil else {
            guard !connected.isEmpty else { return end(.failed(.lostAlone(why))) }
            return detach(.noResume, now: now)
        }
        watchAlone(now: now)
        scheduleReconnect(now: now)
    }

    func scheduleReconnect(now: Instant) {
        guard phase == .away || phase == .resuming else { return }
        phase = .away
        reconnectAt = now + backoff.next(using: &random)
    }

    /// The seat is ours again: report it and reconcile the roster with what changed while away.
    func resumed(_ joined: ServerMessage.Joined, now: Instant) {
        phase = .inRoom
        aloneCheckAt = nil
        aloneSince = nil
        backoff.reset()
        resumeToken = joined.resumeToken ?? resumeToken
        emit(.rendezvousBack(rendezvous: rendezvousName))
        confirmPath()
        let present = Set(joined.peers.map(\.id))
        // A peer missing from the roster that we still talk to stays: a restarted rendezvous
        // seats each of us as our resumes arrive, and its peer-joined will follow. One that
        // really left has closed its link (or gone silent), and is reported now.
        for peer in roster where !present.contains(peer.id) && !connected.contains(peer.id) { departed(peer.id) }
        for peer in joined.peers { arrived(peer) }
        nextPingAt = now + Self.pingInterval
    }

    /// No rendezvous for good: the call goes on with those connected and ends when none is left.
    func detach(_ reason: CallEvent.RendezvousClosing, now: Instant) {
        if reason != .hostLeft && connected.isEmpty { return end(.failed(.closedAlone(reason))) }
        phase = .detached
        detachReason = reason
        nextPingAt = nil
        aloneCheckAt = nil
        reconnectAt = nil
        closeTransport()
        emit(.rendezvousClosed(rendezvous: rendezvousName, reason: reason))
        detachedCheckAt = now + Self.linkCheckInterval
        confirmPath()  // no rendezvous to wait for, as `networkChanged` says when detached
    }

    /// Without a rendezvous a link that ends cannot be set up again: the call is over once none is left.
    func checkDetached(now: Instant) {
        guard phase == .detached else {
            detachedCheckAt = nil
            return
        }
        // Links were up when the rendezvous went (or `detach` would have ended it): the last one ending is why.
        guard !connected.isEmpty else { return end(.left(.nobodyLeft)) }
        detachedCheckAt = now + Self.linkCheckInterval
    }

    /// Looks at the links every `linkCheckInterval` while away: with none up for `awayAloneLimit`,
    /// there is no call to keep.
    func watchAlone(now: Instant) {
        guard aloneCheckAt == nil else { return }
        aloneSince = nil
        aloneCheckAt = now + Self.linkCheckInterval
    }

    func checkAlone(now: Instant) {
        guard phase == .away || phase == .resuming else {
            aloneCheckAt = nil
            return
        }
        if !connected.isEmpty {
            aloneSince = nil
        } else if let aloneSince, now.since(aloneSince) >= Self.awayAloneLimit {
            return end(.failed(.awayAlone(limit: Self.awayAloneLimit)))
        } else if aloneSince == nil {
            aloneSince = now
        }
        aloneCheckAt = now + Self.linkCheckInterval
    }
}
