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

/// What colours the terminal takes: from the environment as terminals announce it.
public enum ColorMode: Sendable, Equatable {
    case trueColor, palette256, none

    /// NO_COLOR set (https://no-color.org) or TERM=dumb: none; COLORTERM=truecolor or 24bit:
    /// 24-bit; otherwise the 256-colour palette every terminal in use today has.
    public static func from(environment: [String: String]) -> ColorMode {
        if !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb" { return .none }
        let announced = (environment["COLORTERM"] ?? "").lowercased()
        return announced == "truecolor" || announced == "24bit" ? .trueColor : .palette256
    }

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
            case .palette256: codes.append("38;5;\(Self.paletteIndex(color))")
            case .none: break
            }
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    /// The nearest colour of the 6x6x6 cube (16...231) or the gray ramp (232...255).
    static func paletteIndex(_ color: CellStyle.Color) -> Int {
        let levels = [0, 95, 135, 175, 215, 255]
        func nearestLevel(_ value: UInt8) -> Int {
            levels.indices.min { abs(levels[$0] - Int(value)) < abs(levels[$1] - Int(value)) }!
        }
        let (r, g, b) = (nearestLevel(color.red), nearestLevel(color.green), nearestLevel(color.blue))
        let cube = 16 + 36 * r + 6 * g + b
        let average = (Int(color.red) + Int(color.green) + Int(color.blue)) / 3
        let grayStep = max(0, min(23, (average - 8 + 5) / 10))
        let gray = 8 + 10 * grayStep
        func distance(_ a: (Int, Int, Int)) -> Int {
            let d = (a.0 - Int(color.red), a.1 - Int(color.green), a.2 - Int(color.blue))
            return d.0 * d.0 + d.1 * d.1 + d.2 * d.2
        }
        return distance((gray, gray, gray)) < distance((levels[r], levels[g], levels[b])) ? 232 + grayStep : cube
    }
}
