import ConfCall
import ConfCore
import ConfIO
import ConfMedia

/// Video in the terminal (`--video-view terminal`): the alternate screen, each peer's newest
/// picture in a grid with its name and its short authentication words under it, and the last
/// event line at the bottom. Event lines go to the bottom line instead of scrolling over the
/// pictures. Names and words come from the network and are drawn escaped (`TerminalEscape`);
/// the bottom line is already `TerminalText`.
public final class TerminalView {
    /// One participant's cell.
    struct Tile {
        var peer: String
        var name: String
        var picture: VideoFrame?
        /// Why no picture is shown instead of the last one ("camera off", "hidden"), if so.
        var badge: String?
    }

    private var status = TerminalText(trusted: "")
    /// Each connected peer's four words (from its `peer-connected` event), kept on screen under
    /// its picture: the bottom line alone would lose them to the next event.
    private var words: [String: String] = [:]
    private var active = false

    public init() {}

    func start() {
        active = true
        Console.out("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J", terminator: "")
    }

    /// An event's human line; its JSON tells which peer's words to keep or forget.
    func show(_ line: TerminalText, event: CallEvent?) {
        status = line
        switch event {
        case .peerConnected(let connected)?: words[connected.peer.id.rawValue] = connected.sas.joined(separator: " ")
        case .peerDisconnected(let disconnected)?: words[disconnected.peer.id.rawValue] = nil
        case .peerLeft(let peer)?: words[peer.id.rawValue] = nil
        default: break
        }
    }

    private var grid = TerminalVideoGrid(colors: ColorMode.from(environment: Console.environment()))

    /// Draws the tiles and the status line, unless the last frame's bytes still hold the next one back.
    func render(_ tiles: [Tile], now: Instant) {
        guard active, !grid.isHeldBack(at: now) else { return }
        let size = terminalSize() ?? (80, 24)
        let gridTiles = tiles.map { tile in
            var label = tile.name
            if let badge = tile.badge { label += " [\(badge)]" }
            if let words = words[tile.peer], !words.isEmpty { label += "  " + words }
            return TerminalVideoGrid.Tile(peer: tile.peer, label: label, picture: tile.badge == nil ? tile.picture : nil)
        }
        var out = "\u{1B}[H" + grid.draw(gridTiles, row: 0, rows: max(2, size.rows - 1), columns: size.columns)
        out += "\u{1B}[\(size.rows);1H\u{1B}[K" + String(status.rendered.prefix(size.columns))
        Console.out(out, terminator: "")
        grid.spent(out.utf8.count, at: now)
    }

    /// Back to the normal screen, where the lines that follow (leaving, errors) stay readable.
    func stop() {
        guard active else { return }
        active = false
        Console.out("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l", terminator: "")
    }
}
