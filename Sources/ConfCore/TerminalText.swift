/// A line for a person to read on a terminal, built so that text from the network cannot slip in
/// raw: in a string literal, the literal parts and interpolated `TerminalText` values (the
/// program's own words and styling) are kept as they are, and every other interpolated value — a
/// name, a chat message, a reason, an error that may quote a peer or a server — goes through
/// `TerminalEscape.escape`.
///
///     let line: TerminalText = "\(style.bold(roomName)) — \(peer.name): \(chat)"
///
/// There is deliberately no conversion from `String` that keeps it raw except `init(trusted:)`.
public struct TerminalText: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// The characters to write, escapes of the program's own styling included.
    public private(set) var rendered: String

    /// Text the program wrote itself (its own escape sequences included): kept as it is.
    public init(trusted: String) { rendered = trusted }

    /// Text from anywhere else: made safe with `TerminalEscape.escape`.
    public init(escaping untrusted: String) { rendered = TerminalEscape.escape(untrusted) }

    public init(stringLiteral value: String) { rendered = value }

    public init(stringInterpolation: Interpolation) { rendered = stringInterpolation.rendered }

    public var isEmpty: Bool { rendered.isEmpty }

    public static func + (a: TerminalText, b: TerminalText) -> TerminalText { TerminalText(trusted: a.rendered + b.rendered) }

    public static func += (a: inout TerminalText, b: TerminalText) { a.rendered += b.rendered }

    public struct Interpolation: StringInterpolationProtocol {
        var rendered = ""

        public init(literalCapacity: Int, interpolationCount: Int) { rendered.reserveCapacity(literalCapacity + 16 * interpolationCount) }

        public mutating func appendLiteral(_ literal: String) { rendered += literal }

        /// Already safe: kept.
        public mutating func appendInterpolation(_ text: TerminalText) { rendered += text.rendered }

        /// Anything else is shown escaped.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            rendered += TerminalEscape.escape(String(describing: value))
        }
    }
}
