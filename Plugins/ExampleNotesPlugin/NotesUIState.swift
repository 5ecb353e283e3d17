import FoundationEssentials

/// The notes app's live user-interface state: what a running app would hold
/// in memory. This example keeps it in `ui.json` under the plugin's
/// `live-dir` option, so that a test or the demo can compare what was
/// preserved with what was restored.
struct NotesUIState: Codable, Equatable {
    var windowSize: [Double] = [800, 600]
    /// Typed into the toolbar's search field, which is excluded from preservation (R2).
    var searchQuery = ""
    var splitDivider = 0.3
    /// Selected rows, as indices into the current note order.
    var selectedIndices: [Int] = []
    var firstVisibleIndex = 0
    var editorNoteID: String?
    var editorText = ""
    var cursor = 0
    var editorFocused = false
    var settingsOpen = false
    var settingsTab = "general"
    var fontSize = 13.0
    var recentNoteIDs: [String] = []

    init() {}

    /// Reads what is there; a missing key keeps its default, as an app
    /// reading an older settings file would.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = NotesUIState()
        windowSize = try container.decodeIfPresent([Double].self, forKey: .windowSize) ?? defaults.windowSize
        searchQuery = try container.decodeIfPresent(String.self, forKey: .searchQuery) ?? defaults.searchQuery
        splitDivider = try container.decodeIfPresent(Double.self, forKey: .splitDivider) ?? defaults.splitDivider
        selectedIndices = try container.decodeIfPresent([Int].self, forKey: .selectedIndices) ?? defaults.selectedIndices
        firstVisibleIndex = try container.decodeIfPresent(Int.self, forKey: .firstVisibleIndex) ?? defaults.firstVisibleIndex
        editorNoteID = try container.decodeIfPresent(String.self, forKey: .editorNoteID)
        editorText = try container.decodeIfPresent(String.self, forKey: .editorText) ?? defaults.editorText
        cursor = try container.decodeIfPresent(Int.self, forKey: .cursor) ?? defaults.cursor
        editorFocused = try container.decodeIfPresent(Bool.self, forKey: .editorFocused) ?? defaults.editorFocused
        settingsOpen = try container.decodeIfPresent(Bool.self, forKey: .settingsOpen) ?? defaults.settingsOpen
        settingsTab = try container.decodeIfPresent(String.self, forKey: .settingsTab) ?? defaults.settingsTab
        fontSize = try container.decodeIfPresent(Double.self, forKey: .fontSize) ?? defaults.fontSize
        recentNoteIDs = try container.decodeIfPresent([String].self, forKey: .recentNoteIDs) ?? defaults.recentNoteIDs
    }

    static func load(from file: URL) -> NotesUIState {
        guard let data = try? Data(contentsOf: file) else { return NotesUIState() }
        return (try? JSONDecoder().decode(NotesUIState.self, from: data)) ?? NotesUIState()
    }

    func save(to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: file, options: .atomic)
    }
}
