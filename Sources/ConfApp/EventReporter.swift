import ConfCore

/// Reports what happens in a call: as JSON lines on stdout with `--json` (human text then goes to
/// stderr), else as human-readable lines on stdout. Errors always reach stderr in words.
///
/// Human lines are `TerminalText`: whatever a line quotes from the network (names, chat, reasons,
/// server messages) is shown escaped, never raw; JSON carries the exact text (escaped by JSON).
final class EventReporter {
    let json: Bool
    let style: Style
    /// While video is drawn in the terminal, human lines go here instead of scrolling over it.
    var humanSink: ((TerminalText) -> Void)?

    init(json: Bool, environment: [String: String]) {
        self.json = json
        style = Style(enabled: Console.wantsColor(fd: json ? 2 : 1, environment: environment))
    }

    /// An event: its JSON object (whose first member is `type`) and its human line.
    func emit(_ event: JSONValue, human: TerminalText) {
        if json {
            Console.out(event.serialized)
            Console.err(human.rendered)
        } else if let humanSink {
            humanSink(human)
        } else {
            Console.out(human.rendered)
        }
    }

    /// Human text with no event: hints, progress.
    func note(_ human: TerminalText) {
        if json { Console.err(human.rendered) } else if let humanSink { humanSink(human) } else { Console.out(human.rendered) }
    }

    /// A failure's message may quote what a server or peer said: escaped for the terminal, exact in JSON.
    func failure(_ failure: CommandFailure) {
        if json {
            Console.out(JSONValue.object(["type": "error", "code": .string(failure.code), "message": .string(failure.message)]).serialized)
        }
        Console.err(("conf: " + style.red(failure.message)).rendered)
    }
}
