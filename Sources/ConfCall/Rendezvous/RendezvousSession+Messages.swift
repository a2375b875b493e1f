import ConfCore
import ConfWire

/// What the rendezvous says: validated, then acted on according to the phase.
extension RendezvousSession {
    func received(_ text: String, now: Instant) {
        guard phase != .idle, phase != .ended else { return }
        lastHeard = now
        heardDuringProbe()
        let message: ServerMessage
        do {
            message = try ServerMessage(text: text)
        } catch {
            return output(.note("conf: ignored a message from the rendezvous: \(error)"))
        }
        switch message {
        case .joined(let joined) where phase == .resuming:
            resumed(joined, now: now)
        case .joined(let joined):
            guard phase == .joining else { return }
            joinedRoom(joined, now: now)
        case .peerJoined(let peer):
            arrived(peer)
        case .peerLeft(let id):
            departed(id)
        case .signal(let from, let payload):
            guard phase == .inRoom else { return }
            output(.signal(from: from, payload))
        case .error(let code, let text):
            if phase == .resuming {
                // resume-refused, or a rendezvous that does not know `resume`: the seat is gone.
                detach(.seatGone(code, message: text), now: now)
            } else if phase == .joining {
                end(.failed(.joinRefused(code, message: text)))
            } else {
                emit(.error(.rendezvous(code, message: text)))
            }
        case .pong:
            break
        case .roomClosed(let reason):
            roomClosedReason = reason
        case .knocking(let text):
            guard phase == .joining else { return }
            emit(.knocking(room: configuration.room, message: text))
        case .knock(let knock):
            emit(.knock(knock))
        case .knockEnded(let id, let outcome):
            emit(.knockEnded(id, outcome: outcome))
        }
    }

    private func joinedRoom(_ joined: ServerMessage.Joined, now: Instant) {
        phase = .inRoom
        resumeToken = joined.resumeToken
        for peer in joined.peers where !roster.contains(where: { $0.id == peer.id }) { roster.append(peer) }
        emit(.joined(.init(you: joined.you, name: configuration.name, role: joined.role, room: joined.room,
                           roomName: joined.roomName, resolution: joined.resolution, peers: joined.peers)))
        nextPingAt = now + Self.pingInterval
        if let duration = configuration.duration { durationEndsAt = now + duration }
        output(.joined(joined))
        confirmPath()
    }

    func arrived(_ peer: Participant) {
        guard !roster.contains(where: { $0.id == peer.id }) else { return }  // a seat we know (and may be talking to) already
        roster.append(peer)
        emit(.peerJoined(peer))
        output(.peerJoined(peer))
    }

    func departed(_ id: ParticipantID) {
        guard let index = roster.firstIndex(where: { $0.id == id }) else { return }
        let peer = roster.remove(at: index)
        emit(.peerLeft(peer))
        output(.peerLeft(id))
    }
}
