import Foundation
import SystemPackage

/// The example apps' live state for the walkthrough: seeded before the save,
/// wiped ("killed") before the restore, compared afterwards.
enum ExampleApps {
    struct Saved {
        var ui: [String: Any]
        var counter: String
        var selectedNote: String
    }

    struct Comparison {
        var report: [String]
        var allRestored: Bool
    }

    static func seed(notes: FilePath, counter: FilePath) throws -> Saved {
        let manager = FileManager.default
        try manager.createDirectory(atPath: notes.appending("notes").string, withIntermediateDirectories: true)
        try manager.createDirectory(atPath: counter.string, withIntermediateDirectories: true)
        let ids = ["groceries", "ideas", "trip"]
        for id in ids { try "Note \(id)\n".write(toFile: notes.appending("notes/\(id).txt").string, atomically: true, encoding: .utf8) }
        try ids.joined(separator: "\n").write(toFile: notes.appending("notes/order").string, atomically: true, encoding: .utf8)
        let ui: [String: Any] = [
            "windowSize": [1024.0, 700.0], "searchQuery": "milk", "splitDivider": 0.35,
            "selectedIndices": [1], "firstVisibleIndex": 0,
            "editorNoteID": "ideas", "editorText": "Ideas\n- restore every app", "cursor": 12, "editorFocused": true,
            "settingsOpen": true, "settingsTab": "fonts", "fontSize": 15.0, "recentNoteIDs": ["ideas", "trip"],
        ]
        try JSONSerialization.data(withJSONObject: ui, options: [.sortedKeys]).write(to: URL(fileURLWithPath: notes.appending("ui.json").string))
        let counterState = "title=Laps\ngeometry=10,20,300,200\ncount=42\nstep=2\n"
        try counterState.write(toFile: counter.appending("state").string, atomically: true, encoding: .utf8)
        return Saved(ui: ui, counter: counterState, selectedNote: "ideas")
    }

    /// A value as JSON text, so that values read back compare with those written.
    private static func json(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]) else { return "nil" }
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    static func kill(notes: FilePath, counter: FilePath) throws {
        try FileManager.default.removeItem(atPath: notes.appending("ui.json").string)
        try FileManager.default.removeItem(atPath: counter.appending("state").string)
        // The list is reordered while the app is away: selection must follow the note (R11).
        try ["trip", "groceries", "ideas"].joined(separator: "\n")
            .write(toFile: notes.appending("notes/order").string, atomically: true, encoding: .utf8)
    }

    static func compare(saved: Saved, notes: FilePath, counter: FilePath) throws -> Comparison {
        var report: [String] = []
        var allRestored = true
        let data = try Data(contentsOf: URL(fileURLWithPath: notes.appending("ui.json").string))
        let ui = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let order = try String(contentsOfFile: notes.appending("notes/order").string, encoding: .utf8).split(separator: "\n").map(String.init)
        let selected = (ui["selectedIndices"] as? [Int] ?? []).compactMap { order.indices.contains($0) ? order[$0] : nil }
        func check(_ label: String, _ ok: Bool, _ detail: String) {
            report.append("\(ok ? "ok  " : "LOST") \(label): \(detail)")
            if !ok { allRestored = false }
        }
        check("notes selection", selected == [saved.selectedNote], "\(selected) (row \(ui["selectedIndices"] ?? []) of the reordered list)")
        for key in ["editorText", "cursor", "editorFocused", "settingsOpen", "settingsTab", "fontSize", "splitDivider", "windowSize", "recentNoteIDs", "editorNoteID"] {
            let before = json(saved.ui[key])
            let after = json(ui[key])
            check("notes \(key)", before == after, after.replacingOccurrences(of: "\n", with: "\\n"))
        }
        report.append("---- notes searchQuery: \"\(ui["searchQuery"] ?? "")\" (the toolbar has no identifier: excluded on purpose, R2)")
        let counterNow = (try? String(contentsOfFile: counter.appending("state").string, encoding: .utf8)) ?? ""
        check("counter state", counterNow == saved.counter, counterNow.replacingOccurrences(of: "\n", with: " "))
        if let snapshot = try? String(contentsOfFile: notes.appending("snapshot-shown.txt").string, encoding: .utf8) {
            report.append("---- notes snapshot shown before the app was back: \"\(snapshot)\" (R12)")
        }
        return Comparison(report: report, allRestored: allRestored)
    }
}
