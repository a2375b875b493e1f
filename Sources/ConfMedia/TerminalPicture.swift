import ConfCore

/// One tile of the terminal view that remembers what it drew: each redraw writes only the cells
/// whose colours changed noticeably (a channel by more than `tolerance`), moves the cursor only
/// where the changed cells are not consecutive, and repeats a colour sequence only when it
/// differs from the cell before. A still picture costs nothing after its first drawing; a
/// moving one, what moved. The picture is never drawn larger than its pixels (one cell per
/// pixel across, one per two pixels down). Colours follow the terminal (`ColorMode`): 24-bit,
/// the nearest of the 256-colour palette, or with NO_COLOR no colour at all, the picture's
/// brightness in characters.
public struct TerminalPicture {
    /// A cell's two colours, upper and lower, 8 bits a channel: 0xRRGGBB_RRGGBB.
    private var cells: [UInt64] = []
    private var box: (row: Int, column: Int, width: Int, height: Int) = (0, 0, 0, 0)
    public var tolerance = 6
    public var colors: ColorMode

    public init(colors: ColorMode = .trueColor) { self.colors = colors }

    /// From dark to light, for a terminal without colour.
    private static let brightness: [Character] = Array(" .:-=+*#%@")

    /// Everything is drawn again next time (the screen was cleared, or the tile blanked).
    public mutating func forget() { cells = [] }

    /// The escape sequences that bring the tile at `(row, column)` (1-based), in a box of
    /// `columns` x `rows` cells, from what it showed to `frame`.
    public mutating func draw(_ frame: VideoFrame, row: Int, column: Int, columns: Int, rows: Int) -> String {
        guard frame.width > 0, frame.height > 0, columns > 0, rows > 0 else { return "" }
        // Fit: w cells wide, h cells high (2h pixels), same aspect as the frame, no more cells than pixels.
        var w = min(columns, frame.width)
        var h = max(1, Int((Double(frame.height) / Double(frame.width) * Double(w) / 2).rounded()))
        if h > rows {
            h = rows
            w = max(1, min(w, Int((Double(frame.width) / Double(frame.height) * Double(h) * 2).rounded())))
        }
        if box != (row, column, w, h) || cells.count != w * h {
            box = (row, column, w, h)
            cells = [UInt64](repeating: .max, count: w * h)  // no colour: every cell is drawn
        }
        var out = ""
        var cursorAt: (row: Int, column: Int)?  // where the cursor is after the last cell written
        var lastColour: UInt64?
        for cellRow in 0..<h {
            for cellColumn in 0..<w {
                let x = cellColumn * frame.width / w
                let top = TerminalRenderer.rgb(frame, x: x, y: (cellRow * 2) * frame.height / (h * 2))
                let bottom = TerminalRenderer.rgb(frame, x: x, y: min(frame.height - 1, (cellRow * 2 + 1) * frame.height / (h * 2)))
                let colour = UInt64(top.r) << 40 | UInt64(top.g) << 32 | UInt64(top.b) << 24 | UInt64(bottom.r) << 16 | UInt64(bottom.g) << 8 | UInt64(bottom.b)
                let index = cellRow * w + cellColumn
                guard !Self.alike(cells[index], colour, tolerance: tolerance) else { continue }
                cells[index] = colour
                if cursorAt.map({ $0 != (row + cellRow, column + cellColumn) }) ?? true {
                    out += "\u{1B}[\(row + cellRow);\(column + cellColumn)H"
                }
                switch colors {
                case .none:
                    let light = (Int(top.r) + Int(top.g) + Int(top.b) + Int(bottom.r) + Int(bottom.g) + Int(bottom.b)) / 6
                    out.append(Self.brightness[light * Self.brightness.count / 256])
                case .trueColor, .palette256:
                    if colour != lastColour {
                        out += colors == .trueColor
                            ? "\u{1B}[38;2;\(top.r);\(top.g);\(top.b);48;2;\(bottom.r);\(bottom.g);\(bottom.b)m"
                            : "\u{1B}[38;5;\(ColorMode.paletteIndex(red: top.r, green: top.g, blue: top.b));"
                                + "48;5;\(ColorMode.paletteIndex(red: bottom.r, green: bottom.g, blue: bottom.b))m"
                        lastColour = colour
                    }
                    out += "▀"
                }
                cursorAt = (row + cellRow, column + cellColumn + 1)
            }
        }
        return out.isEmpty || colors == .none ? out : out + "\u{1B}[0m"
    }

    /// Whether two cells' colours differ by at most `tolerance` in every channel.
    static func alike(_ a: UInt64, _ b: UInt64, tolerance: Int) -> Bool {
        guard a != .max else { return false }
        for shift in stride(from: 0, through: 40, by: 8) where abs(Int(a >> UInt64(shift) & 0xFF) - Int(b >> UInt64(shift) & 0xFF)) > tolerance {
            return false
        }
        return true
    }
}
