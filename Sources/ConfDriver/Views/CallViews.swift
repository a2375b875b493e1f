import ConfCall
import ConfCallMedia
import ConfCore
import ConfIO
import ConfWire

/// What shows the call, each on its own timer: the call screen (`--ui screen`), the terminal view
/// (`--video-view terminal`) and the video window (`--video-view window`). They read the engine's
/// facts and the video pipeline's pictures; event lines go into the screen or the terminal view
/// while one shows.
///
/// Threading: the event loop thread only.
public final class CallViews {
    let loop: EventLoop
    let clock: any MonotonicClock
    let reporter: EventReporter
    let engine: CallEngine
    /// The driver's pipelines, which open once we are in the room.
    private let pipelines: () -> (audio: AudioPipeline?, video: VideoPipeline?)
    var audio: AudioPipeline? { pipelines().audio }
    var video: VideoPipeline? { pipelines().video }

    var terminalView: TerminalView?
    var viewTimer: Timer?
    var screen: ScreenView?
    var screenTimer: Timer?
    var window: VideoWindow?
    var windowTimer: Timer?
    /// When the window was last drawn: a picture that arrives draws it at once unless this was
    /// under 16 ms ago (then the window's timer does, within 33 ms).
    var windowDrawnAt: Instant?

    init(loop: EventLoop, clock: any MonotonicClock, reporter: EventReporter, engine: CallEngine,
         pipelines: @escaping () -> (audio: AudioPipeline?, video: VideoPipeline?)) {
        self.loop = loop
        self.clock = clock
        self.reporter = reporter
        self.engine = engine
        self.pipelines = pipelines
    }

    /// The peers connected now, in id order (the order they joined in): the views' tiles.
    func connectedParticipants() -> [Participant] {
        engine.connectedPeers.compactMap { engine.participant($0) }.sorted { $0.id < $1.id }
    }

    /// Every view closed (the call ends): the session's last lines ("Left the room", an error)
    /// are printed on the normal screen instead of vanishing with the alternate one.
    public func stopAll() {
        stopTerminalView()
        stopScreen()
        stopWindow()
    }
}
