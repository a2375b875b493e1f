internal import CConfShims

/// The size of the terminal on a file descriptor, in character cells; nil when it is not a terminal.
public func terminalSize(fd: Int32 = 1) -> (columns: Int, rows: Int)? {
    var columns: Int32 = 0, rows: Int32 = 0
    guard conf_terminal_size(fd, &columns, &rows) == 0 else { return nil }
    return (Int(columns), Int(rows))
}
