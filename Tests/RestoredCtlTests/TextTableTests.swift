import RestoredControl
import Testing

/// `TextTable` and `TerminalStyle`: columns stay aligned with colour on.
@Suite struct TextTableTests {
    @Test("colour escapes take no room: the columns line up as without colour")
    func colouredCellsAlign() {
        let colour = TerminalStyle(isEnabled: true)
        var coloured = TextTable(header: ["APP", "RESULT", "NOTE"])
        coloured.rows = [["org.example.A", colour.red("CORRUPT"), "x"], ["org.example.Bb", colour.green("ok"), "y"]]
        var plain = TextTable(header: ["APP", "RESULT", "NOTE"])
        plain.rows = [["org.example.A", "CORRUPT", "x"], ["org.example.Bb", "ok", "y"]]
        let stripped = coloured.text(style: colour).replacing(/\u{1B}\[[0-9;]*m/, with: "")
        #expect(stripped == plain.text())
        #expect(plain.text() == "APP             RESULT   NOTE\norg.example.A   CORRUPT  x\norg.example.Bb  ok       y\n")
    }

    @Test("a disabled style writes no escapes")
    func plainStyle() {
        #expect(TerminalStyle.plain.red("x") == "x")
        #expect(TerminalStyle(isEnabled: true).bold("x") == "\u{1B}[1mx\u{1B}[0m")
    }
}
