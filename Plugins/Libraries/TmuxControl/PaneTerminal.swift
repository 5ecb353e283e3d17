import Glibc

/// The terminal of a pane as its programs see it: the size the kernel
/// holds for the pane's pty, read through the pane's first process
/// (`/proc/PID/fd/0`, `TIOCGWINSZ`).
///
/// tmux tells a pane's pty of a new size a little after the layout
/// changes; a program started before that, and which misses the SIGWINCH
/// that follows while it starts, draws at the old size until the next
/// resize. So restored types programs only once each pane's pty has the
/// size tmux gave the pane.
public enum PaneTerminal {
    /// The pty size (columns, rows) of the pane whose first process is
    /// `panePID`; nil when it cannot be read.
    public static func size(ofPanePID panePID: Int32, proc: String = "/proc") -> (columns: Int, rows: Int)? {
        let descriptor = open("\(proc)/\(panePID)/fd/0", O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var size = winsize()
        guard withUnsafeMutablePointer(to: &size, { ioctl(descriptor, UInt(TIOCGWINSZ), $0) }) == 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
