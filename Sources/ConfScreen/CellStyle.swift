import ConfCore

/// How a cell is drawn: a colour (24-bit, shown as the nearest of 256 where the terminal has no
/// more, or not at all with NO_COLOR) and attributes that need no colour.
public struct CellStyle: Hashable, Sendable {
    public struct Color: Hashable, Sendable {
        public var red, green, blue: UInt8
        public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) { (self.red, self.green, self.blue) = (red, green, blue) }

        public static let green = Color(80, 200, 120)
        public static let yellow = Color(230, 190, 60)
        public static let red = Color(230, 80, 70)
        public static let cyan = Color(90, 190, 220)
        public static let gray = Color(140, 140, 140)
    }

    public var foreground: Color?
    public var bold = false
    public var dim = false
    public var reverse = false
    public var underline = false

    public init(foreground: Color? = nil, bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.foreground = foreground
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    public static let plain = CellStyle()
}

extension ColorMode {
    /// The SGR sequence that sets `style` from a reset state.
    func sequence(for style: CellStyle) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.underline { codes.append("4") }
        if style.reverse { codes.append("7") }
        if let color = style.foreground {
            switch self {
            case .trueColor: codes.append("38;2;\(color.red);\(color.green);\(color.blue)")
            case .palette256: codes.append("38;5;\(Self.paletteIndex(red: color.red, green: color.green, blue: color.blue))")
            case .none: break
            }
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
