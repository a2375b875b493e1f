import ConfCore

/// What the engine keeps of one peer: the link to it now, and what outlives that link. A restart
/// replaces the link (a fresh `Link`), never the slot: the set-up's attempts and the
/// restarts counted against a failing peer live here, and start again only when a link connects
/// or the peer joins anew.
struct PeerSlot {
    /// The link to the peer now; nil before the mesh asks for one and after it closed.
    var link: Link?
    /// Which set-up of the link this is since one last connected: 1, then one more for each
    /// restart of a link that never connected (`CallEngine.relayOnlyFromAttempt`).
    private(set) var setupAttempt = 0
    /// When that run of set-ups began (`CallEngine.meshFormingWindow`).
    private(set) var triedSince: Instant?
    /// Restarts of a failed link in a row since a link last connected (`CallEngine.maxRestarts`).
    private(set) var restartsInARow = 0
    /// When the restart scheduled for a failed link is due; nil while none is.
    var restartDue: Instant?
    /// Set-ups given fresh agents because they stalled, since a link last connected (CallEngine+Stall).
    private(set) var stallRestarts = 0

    /// A link to the peer opens. `retrying`: it replaces one that never connected, and is the
    /// next attempt of that run; otherwise the first of a new one.
    mutating func linkOpens(retrying: Bool, now: Instant) {
        if retrying, triedSince != nil {
            setupAttempt += 1
        } else {
            setupAttempt = 1
            triedSince = now
        }
    }

    /// Every link forms again at once (the network changed): a new try, not a failing one.
    mutating func triesAfresh(now: Instant) { triedSince = now }

    /// The restarts counted against a failing link are forgiven, and none is scheduled.
    mutating func forgetRestarts() {
        restartsInARow = 0
        restartDue = nil
    }

    /// The peer joined (again): what was counted against it before is forgotten.
    mutating func joined() {
        forgetRestarts()
        stallRestarts = 0
    }

    /// A link connected: failures count from zero again.
    mutating func connected() {
        restartsInARow = 0
        stallRestarts = 0
    }

    /// Schedules the restart of a failed link, `delay` doubled for each restart in a row; false
    /// (nothing scheduled) once `limit` restarts in a row were made.
    mutating func scheduleRestart(after delay: Duration, limit: Int, now: Instant) -> Bool {
        guard restartsInARow < limit else { return false }
        restartDue = now + delay * (1 << restartsInARow)
        restartsInARow += 1
        return true
    }

    mutating func stalled() { stallRestarts += 1 }
}
