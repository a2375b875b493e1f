import ConfCall
import ConfCore
import ConfIO
import ConfScreen
import ConfWire

/// The call screen (`--ui screen`, the default on a terminal): the engine's facts copied into it
/// five times a second and drawn where they changed; event lines go into its chat pane.
extension CallViews {
    public func startScreen(_ view: ScreenView, you: ParticipantID, name: String, joined: ServerMessage.Joined, showsVideo: Bool) {
        screen = view
        reporter.humanSink = { line, event in view.show(line, event: event) }
        for (line, event) in reporter.earlierLines { view.show(line, event: event) }
        view.model.header.roomName = joined.roomName
        view.model.header.room = joined.room.rawValue
        view.model.header.listener = joined.role == .listener
        view.model.me = CallScreen.Member(id: you.rawValue, name: name)
        view.showsVideo = showsVideo
        let started = clock.now()
        refreshScreen(started: started)
        screenTimer = loop.schedule(every: .milliseconds(200)) { [weak self] in
            guard let self, self.screen != nil else { return false }
            self.refreshScreen(started: started)
            return true
        }
    }

    private func refreshScreen(started: Instant) {
        guard let view = screen else { return }
        let now = clock.now()
        var header = view.model.header
        header.elapsed = .seconds(now.since(started).components.seconds)  // as shown: whole seconds
        header.microphoneMuted = audio?.sends == true ? engine.audioMuted : nil
        header.cameraOff = video?.sends == true ? engine.videoMuted : nil
        view.model.header = header
        let own = engine.ownMarks
        view.model.me.muted = own.muted
        view.model.me.cameraOff = video?.sends == true && own.cameraOff
        view.model.me.talking = own.talking
        view.model.me.level = audio?.sends == true ? engine.ownLevel : nil
        view.model.others = engine.participants.map { peer in
            var member = view.model.others.first { $0.id == peer.id.rawValue } ?? CallScreen.Member(id: peer.id.rawValue, name: peer.name)
            member.name = peer.name
            member.listener = peer.role == .listener
            let marks = engine.marks(of: peer.id)
            (member.muted, member.cameraOff, member.hidden, member.talking) = (marks.muted, marks.cameraOff, marks.hidden, marks.talking)
            if let link = engine.linkView(peer.id) {
                member.connected = link.connected
                member.path = link.path
                // Figures that wobble each report are shown again only when they moved enough to
                // read differently: a quiet call then redraws about once a second (the clock).
                member.roundTrip = Self.shown(member.roundTrip, link.roundTrip)
                member.jitter = Self.shown(member.jitter, link.jitter)
                member.lossPercent = Self.shown(member.lossPercent, link.lossPercent, within: 0.5)
                member.mutedHere = link.mutedHere
                member.level = link.level
                member.words = view.words[peer.id.rawValue] ?? []
            } else {
                member.connected = false
            }
            return member
        }
        // Tiles for those who send video (a picture came, or they turned it off or we hid it).
        let tiles: [TerminalVideoGrid.Tile] = view.showsVideo ? connectedParticipants().compactMap { peer in
            let marks = engine.marks(of: peer.id)
            let picture = video?.pictures[peer.id]
            guard picture != nil || marks.videoBadge != nil else { return nil }
            var label = "\(peer.name) (\(peer.id))"
            if let badge = marks.videoBadge { label += " [\(badge)]" }
            return .init(peer: peer.id.rawValue, label: label, picture: marks.videoBadge == nil ? picture : nil)
        } : []
        view.model.showsVideo = !tiles.isEmpty
        view.tick()
        view.render(pictures: tiles, now: now)
    }

    /// `new`, unless it is within 2 ms or 10 % of what is shown.
    static func shown(_ old: Duration?, _ new: Duration?) -> Duration? {
        guard let old, let new else { return new }
        let difference = abs((new - old).milliseconds)
        return difference < max(2, 0.1 * old.milliseconds) ? old : new
    }

    static func shown(_ old: Double?, _ new: Double?, within margin: Double) -> Double? {
        guard let old, let new else { return new }
        return abs(new - old) < margin ? old : new
    }

    /// The terminal back to the normal screen before the session's last lines.
    public func stopScreen() {
        screenTimer?.cancel()
        screenTimer = nil
        screen?.close()
        screen = nil
        reporter.humanSink = nil
    }
}
