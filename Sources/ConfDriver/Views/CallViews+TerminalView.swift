import ConfCall
import ConfCallMedia
import ConfCore
import ConfIO
import ConfWire

/// The terminal view (`--video-view terminal`): each connected peer's newest picture, redrawn
/// on a timer; event lines go into it while it shows.
extension CallViews {
    /// Redraws the terminal view five times a second while the call lasts; event lines go to it.
    public func startTerminalView(_ view: TerminalView) {
        terminalView = view
        reporter.humanSink = { line, event in view.show(line, event: event) }
        view.start()
        viewTimer = loop.schedule(every: .milliseconds(200)) { [weak self] in
            guard let self else { return false }
            view.render(self.connectedParticipants().map { peer in
                .init(peer: peer.id.rawValue, name: "\(peer.name) (\(peer.id))", picture: self.video?.pictures[peer.id],
                      badge: self.engine.marks(of: peer.id).videoBadge)
            }, now: self.clock.now())
            return true
        }
    }

    /// Leaves the terminal view before the session's last lines ("Left the room", an error), so
    /// that they are printed on the normal screen instead of vanishing with the alternate one.
    public func stopTerminalView() {
        viewTimer?.cancel()
        terminalView?.stop()
        terminalView = nil
        reporter.humanSink = nil
    }
}
