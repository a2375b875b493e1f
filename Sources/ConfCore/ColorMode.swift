/// What colours the terminal takes: from the environment as terminals announce it. The call
/// screen's text and the terminal's video pictures both follow it.
public enum ColorMode: Sendable, Equatable {
    case trueColor, palette256, none

    /// NO_COLOR set (https://no-color.org) or TERM=dumb: none; COLORTERM=truecolor or 24bit:
    /// 24-bit; otherwise the 256-colour palette every terminal in use today has.
    public static func from(environment: [String: String]) -> ColorMode {
        if !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb" { return .none }
        let announced = (environment["COLORTERM"] ?? "").lowercased()
        return announced == "truecolor" || announced == "24bit" ? .trueColor : .palette256
    }

    /// The nearest colour of the 6x6x6 cube (16...231) or the gray ramp (232...255).
    public static func paletteIndex(red: UInt8, green: UInt8, blue: UInt8) -> Int {
        let levels = [0, 95, 135, 175, 215, 255]
        func nearestLevel(_ value: UInt8) -> Int {
            levels.indices.min { abs(levels[$0] - Int(value)) < abs(levels[$1] - Int(value)) }!
        }
        let (r, g, b) = (nearestLevel(red), nearestLevel(green), nearestLevel(blue))
        let cube = 16 + 36 * r + 6 * g + b
        let average = (Int(red) + Int(green) + Int(blue)) / 3
        let grayStep = max(0, min(23, (average - 8 + 5) / 10))
        let gray = 8 + 10 * grayStep
        func distance(_ a: (Int, Int, Int)) -> Int {
            let d = (a.0 - Int(red), a.1 - Int(green), a.2 - Int(blue))
            return d.0 * d.0 + d.1 * d.1 + d.2 * d.2
        }
        return distance((gray, gray, gray)) < distance((levels[r], levels[g], levels[b])) ? 232 + grayStep : cube
    }
}
