/// Bold and colour for human-readable lines, or nothing when colour is off. A `String` given
/// here is text from elsewhere and is escaped; a `TerminalText` is kept.
public struct Style: Sendable {
    public let enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }
    public func bold(_ s: TerminalText) -> TerminalText { wrap(s, "1") }
    public func green(_ s: TerminalText) -> TerminalText { wrap(s, "32") }
    public func red(_ s: TerminalText) -> TerminalText { wrap(s, "31") }
    public func dim(_ s: TerminalText) -> TerminalText { wrap(s, "2") }
    public func bold(_ s: String) -> TerminalText { bold(TerminalText(escaping: s)) }
    public func green(_ s: String) -> TerminalText { green(TerminalText(escaping: s)) }
    public func red(_ s: String) -> TerminalText { red(TerminalText(escaping: s)) }
    public func dim(_ s: String) -> TerminalText { dim(TerminalText(escaping: s)) }

    private func wrap(_ s: TerminalText, _ sgr: String) -> TerminalText {
        enabled ? TerminalText(trusted: "\u{1B}[\(sgr)m") + s + TerminalText(trusted: "\u{1B}[0m") : s
    }
}
