import ConfCore
import ConfIO

extension CallController {
    /// Redraws the terminal view five times a second while the call lasts; event lines go to it.
    func startTerminalView(_ view: TerminalView) {
        terminalView = view
        reporter.humanSink = { line, event in view.show(line, event: event) }
        view.start()
        viewTimer = loop.schedule(every: .milliseconds(200)) { [weak self] in
            guard let self else { return false }
            let peers = self.links.values.sorted { $0.peer.id.rawValue < $1.peer.id.rawValue }
            view.render(peers.map { .init(peer: $0.peer.id.rawValue, name: "\($0.peer.name) (\($0.peer.id))", picture: $0.videoIn?.lastPicture) })
            return true
        }
    }

    /// Leaves the terminal view before the session's last lines ("Left the room", an error), so
    /// that they are printed on the normal screen instead of vanishing with the alternate one.
    func stopTerminalView() {
        viewTimer?.cancel()
        terminalView?.stop()
        reporter.humanSink = nil
    }
}
