import ConfCore
import ConfSession
import ConfWire

/// What is due at a given time: DTLS retransmissions, reports, silence, timeouts, restarts,
/// audio playout, statistics.
extension CallEngine {
    /// The link's own deadlines (`Link.considerDeadlines`), and the engine's for it: the connect
    /// timeout and a stalled set-up while it negotiates, the wait for a peer's secret once up.
    func considerDeadlines(of link: Link, in earliest: inout EarliestDeadline) {
        guard link.phase != .disconnected else { return }
        link.considerDeadlines(in: &earliest, reportInterval: reportInterval(for: link))
        if link.phase == .negotiating {
            earliest.consider(link.openedAt + configuration.connectTimeout)
            earliest.consider(stallDeadline(of: link))
        }
        if link.phase == .connected, awaitsPeerSASNonce(link) { earliest.consider(link.dtlsConnectedAt.map { $0 + Self.sasNonceWait }) }
    }

    /// What is due by `now`. `only`: after a datagram from one peer, that link alone (with what
    /// is not per link): the others' deadlines did not move, and `.timeout` comes for them.
    func service(now: Instant, only: Link? = nil) {
        if isLeaving { return }
        runRestarts(now: now)
        if let only {
            serviceLink(only, now: now, afterDatagram: true)
        } else {
            // A snapshot: a link set up again while serviced replaces its entry, not this loop's.
            for link in linksInOrder { serviceLink(link, now: now) }
        }
        if let deadline = connectDeadline, !everConnected, now >= deadline {
            connectDeadline = nil
            if !links.isEmpty && !callFailedReported {
                for link in linksInOrder where link.phase == .negotiating { timedOut(link, now: now) }
                callFailedReported = true
                outputs.append(.callFailed(noPath: sawNoPath))
            }
        }
        askNewLinkKeyFrameWhenDue(now: now)
        serviceRates(now: now)
        // Not after each datagram: what decides it changes on timers and the other inputs.
        if only == nil { sayWhetherVideoIsWanted() }
        if let at = nextStatsAt, now >= at, let interval = configuration.statsInterval {
            // On a fixed cadence: a late pass (a loaded machine) does not push the next ones back.
            nextStatsAt = at + interval > now ? at + interval : now + interval
            reportStatistics(now: now)
            reportLinkStatistics(now: now)
        }
    }

    /// The engine's deadlines for the link (a stalled set-up, the connect timeout, the wait for
    /// the peer's secret), then the link's own.
    private func serviceLink(_ link: Link, now: Instant, afterDatagram: Bool = false) {
        guard link.phase != .disconnected else { return }
        if link.phase == .negotiating {
            restartIfStalled(link, now: now)
            guard link.phase == .negotiating else { return }
            // Each link gets --connect-timeout to come up; one that does not is reported (the
            // call goes on with the others).
            if now.since(link.openedAt) >= configuration.connectTimeout {
                timedOut(link, now: now)
                return
            }
        }
        announceIfSASNonceLate(link, now: now)
        handle(.timeout(reportInterval: reportInterval(for: link), afterDatagram: afterDatagram), on: link, now: now)
    }

    /// How often the peer gets a report from us: it is how the peer knows we are there (see
    /// `silenceLimit`). With no audio going out (a listener, muted), four a second, so that even
    /// 30 % loss leaves it hearing from us several times within the limit.
    func reportInterval(for link: Link) -> Duration {
        link.sendsAudio && !audioMuted && configuration.sendsAudio ? Self.reportInterval : Self.reportInterval / 2
    }

    /// A link that did not come up within --connect-timeout, reported for what held it up.
    func timedOut(_ link: Link, now: Instant) {
        let timeout = configuration.connectTimeout
        if link.negotiated == nil {
            disconnect(link, .connectTimeout(timeout, stalledAt: .unanswered), now: now)
        } else if !link.iceConnected {
            // Negotiated through the rendezvous (TCP), yet no UDP check came back.
            disconnect(link, .noPath(within: timeout, cause: link.noPathCause), now: now)
        } else {
            disconnect(link, .connectTimeout(timeout, stalledAt: .handshake), now: now)
        }
    }
}

/// The soonest of the deadlines it is shown, nil for none.
struct EarliestDeadline {
    private(set) var instant: Instant?

    mutating func consider(_ deadline: Instant?) {
        guard let deadline else { return }
        if let instant, instant <= deadline { return }
        instant = deadline
    }
}
