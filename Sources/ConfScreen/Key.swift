/// A key pressed in the terminal, decoded from the bytes a terminal sends for it.
public enum Key: Equatable, Sendable {
    case character(Character)
    case enter, tab, backTab, backspace, delete, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// Control and a letter (`control("c")` for Ctrl-C), other than those above (Tab is Ctrl-I,
    /// Enter Ctrl-M, Backspace Ctrl-H or DEL).
    case control(Character)
}
