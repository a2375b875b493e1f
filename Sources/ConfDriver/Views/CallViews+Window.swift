import ConfCall
import ConfCallMedia
import ConfCore
import ConfIO
import ConfWire

/// The video window (`--video-view window`): every connected peer's newest picture and marks,
/// our own picture in a corner. A picture that arrives is drawn at once (at most 60 times a
/// second: glass-to-glass delay, BENCHMARKS.md); everything else is looked at 30 times a second
/// and drawn when it changed. Its keys come back as window actions for the owner to run like
/// stdin commands.
extension CallViews {
    public func startWindow(_ window: VideoWindow, onAction: @escaping (VideoWindow.Action) -> Void) {
        self.window = window
        windowTimer = loop.schedule(every: .milliseconds(33)) { [weak self] in
            guard let self, let window = self.window else { return false }
            for action in window.pollActions() { onAction(action) }
            self.drawWindow()
            return true
        }
    }

    /// A peer's picture was decoded: on screen now, unless the window was drawn under 16 ms ago.
    func pictureArrived() {
        guard window != nil else { return }
        if let drawn = windowDrawnAt, clock.now().since(drawn) < .milliseconds(16) { return }
        drawWindow()
    }

    private func drawWindow() {
        guard let window else { return }
        windowDrawnAt = clock.now()
        window.draw(windowTiles(), own: ownTile())
    }

    /// Closes the window (the call ends); stdin commands still work without it.
    public func stopWindow() {
        windowTimer?.cancel()
        windowTimer = nil
        window?.close()
        window = nil
    }

    private func windowTiles() -> [VideoWindow.Tile] {
        connectedParticipants().map { peer in
            let marks = engine.marks(of: peer.id)
            let picture = marks.videoBadge == nil ? video?.pictures[peer.id] : nil
            return VideoWindow.Tile(id: peer.id.rawValue, name: peer.name, picture: picture, badges: marks.badges, talking: marks.talking)
        }
    }

    /// Ours, while we send video (a listener, or a call without a camera, has none).
    private func ownTile() -> VideoWindow.Tile? {
        guard let video, video.sends else { return nil }
        let marks = engine.ownMarks
        // "you" is no participant id (those are p1, p2...): its texture is its own.
        return VideoWindow.Tile(id: "you", name: "you", picture: marks.cameraOff ? nil : video.ownPicture,
                                badges: marks.badges, talking: marks.talking)
    }
}
