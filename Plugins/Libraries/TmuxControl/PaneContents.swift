/// The text panes show, for the tmux plugin's optional `pane-contents`.
///
/// Read with `capture-pane -p -J` (the visible lines, wrapped lines joined,
/// no escape sequences), many panes per tmux call, each pane's text ended by
/// a marker line tmux prints with `display-message`: printable ASCII (tmux
/// 3.4 and 3.5 escape control characters in what `display-message` prints,
/// never in what `capture-pane` does), new for each read, so that no text a
/// pane shows can end a pane early. Shown again, the text
/// is printed to a terminal: ``printable(_:)`` keeps no control character
/// but line feeds and tabs, so nothing in an archive can drive the terminal.
public enum PaneContents {
    /// A marker line no pane shows: 128 random bits.
    static func newMarker() -> String {
        var generator = SystemRandomNumberGenerator()
        let bits = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }
        return "restored-pane-end-" + bits.joined(separator: "-")
    }

    /// The key of one pane in ``read(_:from:panesPerCall:)``'s result.
    public static func key(session: String, window: Int, pane: Int) -> String {
        "\(session)\u{0}\(window)\u{0}\(pane)"
    }

    /// The visible text of every pane of `snapshot`, by ``key(session:window:pane:)``.
    public static func read(_ snapshot: TmuxSnapshot, from runner: TmuxRunner, panesPerCall: Int = 64) throws(TmuxError) -> [String: String] {
        var targets: [(key: String, target: String)] = []
        for session in snapshot.sessions {
            for window in session.windows {
                for pane in window.panes {
                    targets.append((key(session: session.name, window: window.index, pane: pane.index), "=\(session.name):\(window.index).\(pane.index)"))
                }
            }
        }
        var contents: [String: String] = [:]
        let marker = newMarker()
        var start = 0
        while start < targets.count {
            let chunk = targets[start..<min(start + max(panesPerCall, 1), targets.count)]
            start += chunk.count
            let commands = chunk.flatMap { [["capture-pane", "-p", "-J", "-t", $0.target], ["display-message", "-p", marker]] }
            let output = try runner.run(commands: commands)
            var texts = output.components(separatedBy: marker + "\n")
            if texts.last == "" { texts.removeLast() }
            guard texts.count == chunk.count else {
                throw .unreadableOutput(socket: runner.socket, detail: "\(texts.count) pane contents for \(chunk.count) panes")
            }
            for (target, text) in zip(chunk, texts) { contents[target.key] = text }
        }
        return contents
    }

    /// `text` safe to print: control characters other than line feed and
    /// tab dropped, trailing blank lines dropped.
    public static func printable(_ text: String) -> String {
        let kept = String(String.UnicodeScalarView(text.unicodeScalars.filter { scalar in
            scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }))
        var lines = kept.split(separator: "\n", omittingEmptySubsequences: false)
        while let last = lines.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
