import ConfCore
import ConfWire

/// A change of this machine's addresses, as the rendezvous connection lives through it. A
/// WebSocket whose local address went away neither fails nor closes: what is written to it is
/// simply never delivered, until pings time out 40 s later. Signals sent meanwhile (the restart
/// and the new offers the engine makes at once) would be lost. So the connection is pinged first;
/// the owner gets `.signalPathConfirmed` when it answers, or when a new connection, made at once
/// after `networkProbeWait` of silence, has taken the seat back, and only then sets the links up
/// again.
extension RendezvousSession {
    func networkChanged(now: Instant) {
        switch phase {
        case .inRoom:
            owesPathConfirmation = true
            probeGivenUpAt = now + Self.networkProbeWait
            send(.ping)
        case .away:
            // Reconnect now, from the new addresses, rather than at the backoff's next try.
            owesPathConfirmation = true
            backoff.reset()
            reconnectAt = now
        case .resuming, .connecting, .joining:
            owesPathConfirmation = true  // confirmed when the seat is ours
        case .idle, .detached, .leaving, .ended:
            output(.signalPathConfirmed)  // no rendezvous to wait for
        }
    }

    /// A message from the rendezvous: a pending probe is answered.
    func heardDuringProbe() {
        guard probeGivenUpAt != nil, phase == .inRoom else { return }
        probeGivenUpAt = nil
        confirmPath()
    }

    /// The seat is ours (joined or resumed): signals go through again.
    func confirmPath() {
        guard owesPathConfirmation else { return }
        owesPathConfirmation = false
        output(.signalPathConfirmed)
    }

    /// No answer since the network changed: the connection is given up and a new one made at once.
    func probeTimedOut(now: Instant) {
        probeGivenUpAt = nil
        guard phase == .inRoom else { return }
        closeTransport(code: 1001, reason: "network changed")
        lost(.networkChanged, now: now)
        guard phase == .away else { return }
        // At once, not at the backoff's time that `lost` scheduled.
        backoff.reset()
        reconnectAt = nil
        output(.connect)
    }
}
