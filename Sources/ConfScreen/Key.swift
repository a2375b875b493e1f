/// A key pressed in the terminal, decoded from the bytes a terminal sends for it.
public enum Key: Equatable, Sendable {
    case character(Character)
    case enter, tab, backTab, backspace, delete, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// Control and a letter (`control("c")` for Ctrl-C), other than those above (Tab is Ctrl-I,
    /// Enter Ctrl-M, Backspace Ctrl-H or DEL).
    case control(Character)
    /// Text the terminal marked as pasted (bracketed paste, `ESC [ 200 ~` ... `ESC [ 201 ~`): typed
    /// into the input line as text, never taken as keys, its line breaks made spaces.
    case paste(String)
}
