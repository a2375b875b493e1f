import ConfCall
import ConfCore

/// Reports what happens in a call: as JSON lines on stdout with `--json` (human text then goes to
/// stderr), else as human-readable lines on stdout. Errors always reach stderr in words.
///
/// Every event is a `CallEvent`, rendered by its one JSON and one human renderer; each JSON event
/// carries `t` (seconds since this reporter was made, from `clock`) and `at` (from `wallClock`).
/// Human lines are `TerminalText`: whatever a line quotes from the network is shown escaped.
public final class EventReporter {
    public let json: Bool
    public let style: Style
    private let clock: any MonotonicClock
    private let wallClock: any WallClock
    private let start: Instant
    /// While video is drawn in the terminal, human lines (with their event, if any) go here
    /// instead of scrolling over it.
    var humanSink: ((TerminalText, CallEvent?) -> Void)?
    /// The last human lines printed before a sink took them (the room's join command, the devices
    /// missing): a screen that starts later shows them too.
    private(set) var earlierLines: [(TerminalText, CallEvent?)] = []
    private static let earlierLinesKept = 30
    /// Every event, after it is printed (the call's sounds follow them).
    var onEvent: ((CallEvent) -> Void)?

    public init(json: Bool, environment: [String: String], clock: any MonotonicClock, wallClock: any WallClock) {
        self.json = json
        style = Style(enabled: Console.wantsColor(fd: json ? 2 : 1, environment: environment))
        self.clock = clock
        self.wallClock = wallClock
        start = clock.now()
    }

    /// The event's JSON line as it would be printed now.
    public func jsonLine(_ event: CallEvent) -> String {
        event.json(at: EventTime(sinceStart: clock.now().since(start), wall: wallClock.now())).serialized
    }

    public func emit(_ event: CallEvent) {
        let human = event.human(style)
        if json {
            Console.out(jsonLine(event))
            if let human { Console.err(human.rendered) }
        } else if let human {
            if let humanSink { humanSink(human, event) } else { printed(human, event) }
        }
        onEvent?(event)
    }

    /// Human text with no event: hints, progress.
    public func note(_ human: TerminalText) {
        if json { Console.err(human.rendered) } else if let humanSink { humanSink(human, nil) } else { printed(human, nil) }
    }

    private func printed(_ human: TerminalText, _ event: CallEvent?) {
        Console.out(human.rendered)
        earlierLines.append((human, event))
        if earlierLines.count > Self.earlierLinesKept { earlierLines.removeFirst() }
    }

    /// A failure: an `error` event with `--json`, and its words always on stderr. Its message may
    /// quote what a server or peer said: escaped for the terminal, exact in JSON.
    public func failure(_ failure: CommandFailure) {
        let event = CallEvent.error(.failed(code: failure.code, message: failure.message))
        if json { Console.out(jsonLine(event)) }
        if let human = event.human(style) { Console.err(human.rendered) }
    }
}
