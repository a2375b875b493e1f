import ConfCore
import ConfSession
import ConfWire

/// A network that changes under a call (a laptop moving from Wi-Fi to a cable, a VPN coming up, an
/// address renewed): the old candidate pairs may be dead, so every link is set up again at once on
/// the new addresses (new ICE agent and credentials, a new offer and DTLS session), without leaving
/// the room and without waiting to notice silence. Only the side that offered a link can set it
/// up again (ConfSession.Mesh). Either side tells the other with a `restart` signal first: the
/// offerer then makes a new offer, the answerer ends the link and waits for one (signals are
/// relayed in order, so the signal comes before the offer).
extension CallEngine {
    /// Our addresses changed.
    func networkChanged(now: Instant) {
        guard mesh != nil, !isLeaving else { return }
        for id in roster.keys.sorted() {
            guard let link = peerSlots[id]?.link else { continue }
            outputs.append(.signal(id, PeerSignal.restart.json))
            setUpAgain(link, .networkChanged(here: true), now: now)
        }
    }

    /// The peer's network changed: as the offerer we set the link up again; as the answerer we
    /// end it and take the new offer that follows.
    func peerNetworkChanged(_ id: ParticipantID, now: Instant) {
        guard let link = peerSlots[id]?.link, !isLeaving else { return }
        setUpAgain(link, .networkChanged(here: false), now: now)
    }

    /// Ends the link and, as its offerer, makes a new one now: a change of network is not a
    /// failure, so it neither waits nor counts against the restarts a failing link is allowed.
    private func setUpAgain(_ link: Link, _ reason: DisconnectReason, now: Instant) {
        let id = link.id
        let offerer = mesh?.isOfferer(to: id) == true
        peerSlots[id, default: PeerSlot()].triesAfresh(now: now)
        if link.phase == .disconnected {
            // Already waiting for a restart: make it now.
            guard offerer else { return }
        } else {
            // The peer hears of it from the restart signal (ours or its own), not from a close_notify.
            disconnect(link, reason, now: now, restart: !offerer, tellingThePeer: false)
        }
        guard offerer else { return }  // the answerer waits for the new offer
        peerSlots[id]?.forgetRestarts()
        mesh?.restart(id)
        drainMesh(now: now)
    }
}
