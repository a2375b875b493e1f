import ConfCore
import ConfWire

/// The WebSocket's life as the session sees it, and its timers.
extension RendezvousSession {
    func opened(now: Instant) {
        transportOpen = true
        switch phase {
        case .connecting:
            phase = .joining
            lastHeard = now
            send(.join(room: configuration.room, pin: configuration.pin, name: configuration.name))
        case .away:
            guard let resumeToken else { return scheduleReconnect(now: now) }
            phase = .resuming
            lastHeard = now
            send(.resume(token: resumeToken))
        case .ended:
            closeTransport()  // it opened after we gave up
        case .idle, .joining, .inRoom, .resuming, .detached, .leaving:
            break
        }
    }

    func failed(_ failure: RendezvousClientError, now: Instant) {
        switch phase {
        case .connecting: end(.failed(.cannotConnect(failure)))
        case .away: scheduleReconnect(now: now)
        case .idle, .joining, .inRoom, .resuming, .detached, .leaving, .ended: break
        }
    }

    func closed(code: UInt16, reason: String, now: Instant) {
        transportOpen = false
        switch phase {
        case .ended, .detached: return
        case .leaving: end(.left(leaveReason))
        case .away: scheduleReconnect(now: now)
        case .resuming: lost(.closedWhileResuming, now: now)
        case .inRoom:
            if roomClosedReason == "host-left" {
                guard !connected.isEmpty else { return end(.left(.hostLeft)) }
                return detach(.hostLeft, now: now)
            }
            lost(.closed(code: code, reason: reason), now: now)
        case .idle, .connecting, .joining:
            if let roomClosedReason {
                return end(roomClosedReason == "host-left" ? .left(.hostLeft) : .failed(.shutDown))
            }
            if code == 1000 || phase == .joining {
                // The server refused us and said why in an error message already handled, or closed for its own reason.
                return end(.failed(.closedBeforeJoining(reason: reason)))
            }
            end(.failed(.lostBeforeJoining(reason: reason)))
        }
    }

    func timeout(now: Instant) {
        if let at = closeGivenUpAt, at <= now {
            closeGivenUpAt = nil
            end(.left(leaveReason))
        }
        if let at = durationEndsAt, at <= now {
            durationEndsAt = nil
            leave(.duration, now: now)
        }
        if let at = nextPingAt, at <= now { pingDue(now: now) }
        if let at = reconnectAt, at <= now {
            reconnectAt = nil
            if phase == .away { output(.connect) }
        }
        if let at = aloneCheckAt, at <= now { checkAlone(now: now) }
        if let at = detachedCheckAt, at <= now { checkDetached(now: now) }
        if let at = probeGivenUpAt, at <= now { probeTimedOut(now: now) }
    }

    /// In the room, every `pingInterval`: the server is dead after `serverSilenceLimit` without a
    /// word (seen here, so at the first ping after the limit), else it is pinged.
    func pingDue(now: Instant) {
        guard phase == .inRoom else {
            nextPingAt = nil
            return
        }
        if now.since(lastHeard) >= Self.serverSilenceLimit {
            return lost(.stoppedAnswering, now: now)
        }
        send(.ping)
        nextPingAt = now + Self.pingInterval
    }
}
