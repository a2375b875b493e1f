import ConfCore
import ConfMedia

/// Others' pictures in half blocks on a band of terminal rows, a label under each: what the plain
/// terminal view (`TerminalView`, the whole screen) and the call screen (`ScreenView`, its video
/// rows) both draw. Only the cells that changed are written again (`TerminalPicture`); when the
/// tiles or their labels change, the band is cleared and drawn whole. Labels may come from the
/// network: they are escaped here.
struct TerminalVideoGrid {
    struct Tile {
        var peer: String
        /// As people read it: escaped here.
        var label: String
        /// Nil for a tile without one (the camera is off, the video hidden, none came yet).
        var picture: VideoFrame?
    }

    /// Bytes a second the pictures may take: a frame that wrote more makes the next one wait, so
    /// that a huge terminal gets fewer frames rather than tens of megabytes a second.
    static let bytesPerSecond = 2_000_000

    /// What each tile last drew, by peer.
    private var pictures: [String: TerminalPicture] = [:]
    /// The band and the tiles' labels last drawn.
    private var layout: [String] = []
    private var nextFrameAt: Instant?
    /// The terminal's colours (NO_COLOR, 256 or 24-bit), for every tile.
    let colors: ColorMode

    init(colors: ColorMode) { self.colors = colors }

    /// Forgets what the terminal shows (something else drew over the band).
    mutating func invalidate() {
        pictures = [:]
        layout = []
    }

    /// Whether the last frame's bytes still hold the next one back at `now`.
    func isHeldBack(at now: Instant) -> Bool { nextFrameAt.map { now < $0 } ?? false }

    /// `bytes` were written at `now`: the next frame waits for them to drain at `bytesPerSecond`.
    mutating func spent(_ bytes: Int, at now: Instant) {
        nextFrameAt = now + .nanoseconds(Int64(bytes) * 1_000_000_000 / Int64(Self.bytesPerSecond))
    }

    /// The bytes that draw `tiles` on rows `row..<row + rows` (from 0), `columns` wide.
    mutating func draw(_ tiles: [Tile], row: Int, rows: Int, columns: Int) -> String {
        let cells = TerminalRenderer.grid(count: max(1, tiles.count), columns: columns, rows: rows)
        let labels = zip(cells, tiles).map { cell, tile in String(TerminalEscape.escape(tile.label).prefix(cell.columns)) }
        let band = ["\(row) \(rows) \(columns)"] + zip(tiles, labels).map { "\($0.peer) \($1)" }
        var out = ""
        if band != layout {
            pictures = [:]
            for line in row..<(row + rows) { out += "\u{1B}[\(line + 1);1H\u{1B}[0m\u{1B}[K" }
            for (cell, label) in zip(cells, labels) { out += "\u{1B}[\(row + cell.row + cell.rows - 1);\(cell.column)H" + label }
            layout = band
        }
        for (cell, tile) in zip(cells, tiles) {
            guard let picture = tile.picture else { continue }
            out += pictures[tile.peer, default: TerminalPicture(colors: colors)].draw(picture, row: row + cell.row, column: cell.column,
                                                                      columns: cell.columns, rows: max(1, cell.rows - 1))
        }
        return out
    }
}
