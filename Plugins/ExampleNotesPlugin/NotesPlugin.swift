import FoundationEssentials
import RestorationKit

/// The example notes app (`org.example.Notes`).
///
/// Options: `live-dir`, the directory holding the app's live state:
/// `notes/order` (note ids, one a line, in display order), `notes/<id>.txt`
/// (the notes themselves: data, never preserved) and `ui.json`
/// (``NotesUIState``). Preservation reads `ui.json`; restoration writes it.
/// A note whose text starts with `!private` is redacted from the snapshot,
/// and the archive then asks not to show any snapshot at the next launch (R12).
final class NotesPlugin: RestorationPlugin {
    static let appID = "org.example.Notes"
    static let appVersion = "2.1"
    static let displayName = "Notes (Swift example)"
    static var restorationClasses: [any RestorationClass.Type] { [SettingsSheet.self] }

    private let context: PluginContext
    private let liveDirectory: URL
    private let window: NotesWindow
    private let list: NotesList
    private let editor: Editor
    private var recentNoteIDs: [String] = []
    private var redactSnapshot = false

    init(context: PluginContext) throws {
        guard let directory = context.options["live-dir"] else {
            throw NotesPluginError.missingOption("live-dir")
        }
        self.context = context
        liveDirectory = URL(fileURLWithPath: directory)
        let order = (try? String(contentsOf: liveDirectory.appendingPathComponent("notes/order"), encoding: .utf8))?
            .split(separator: "\n").map(String.init) ?? []

        // The app's default UI, as it is built at launch.
        list = NotesList(order: order)
        editor = Editor()
        let split = SplitView(panes: [list, editor])
        window = NotesWindow(toolbar: Toolbar(), split: split)

        // R8 step 3: the objects that exist at launch can be found by path.
        context.registerObject(window, at: RestorationPath("Main"))
        context.registerObject(split, at: RestorationPath("Main", "Split"))
        context.registerObject(list, at: RestorationPath("Main", "Split", "List"))
        context.registerObject(editor, at: RestorationPath("Main", "Split", "Editor"))

        apply(NotesUIState.load(from: uiFile))
    }

    var rootObjects: [any RestorableObject] { [window] }

    private var uiFile: URL { liveDirectory.appendingPathComponent("ui.json") }

    // MARK: Delegate

    func shouldSaveApplicationState(coder: StateCoder) -> Bool {
        // The live state may have changed since launch: read it now.
        apply(NotesUIState.load(from: uiFile))
        return true
    }

    func willEncodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(recentNoteIDs, forKey: "recent")
        if redactSnapshotNeeded { try context.ignoreSnapshotOnNextLaunch() }
    }

    func didDecodeRestorableState(with coder: StateCoder) throws {
        recentNoteIDs = try coder.decode([String].self, forKey: "recent") ?? []
    }

    func restorationDidFinish() {
        do {
            try currentState().save(to: uiFile)
        } catch {
            context.log("could not write \(uiFile.path): \(error)", level: .error)
        }
    }

    func willTakeSnapshot() {
        redactSnapshot = redactSnapshotNeeded
    }

    func snapshot() -> RestorationSnapshot? {
        let title = redactSnapshot ? "(private note hidden)" : (editor.text.split(separator: "\n").first.map(String.init) ?? "")
        return RestorationSnapshot(text: "Notes: \(title)")
    }

    func present(_ snapshot: RestorationSnapshot) {
        try? snapshot.data.write(to: liveDirectory.appendingPathComponent("snapshot-shown.txt"))
    }

    // MARK: Live state

    private var redactSnapshotNeeded: Bool { editor.text.hasPrefix("!private") }

    private func apply(_ state: NotesUIState) {
        window.size = state.windowSize
        window.toolbar.search.query = state.searchQuery
        window.split.divider = state.splitDivider
        list.selectedIndices = state.selectedIndices
        list.firstVisibleIndex = state.firstVisibleIndex
        editor.noteID = state.editorNoteID
        editor.text = state.editorText
        editor.cursor = state.cursor
        editor.isFocused = state.editorFocused
        if state.settingsOpen {
            let sheet = editor.settings ?? SettingsSheet()
            sheet.tab = state.settingsTab
            sheet.fontSize = state.fontSize
            editor.settings = sheet
        } else {
            editor.settings = nil
        }
        recentNoteIDs = state.recentNoteIDs
    }

    private func currentState() -> NotesUIState {
        var state = NotesUIState()
        state.windowSize = window.size
        state.searchQuery = window.toolbar.search.query
        state.splitDivider = window.split.divider
        state.selectedIndices = list.selectedIndices
        state.firstVisibleIndex = list.firstVisibleIndex
        state.editorNoteID = editor.noteID
        state.editorText = editor.text
        state.cursor = editor.cursor
        state.editorFocused = editor.isFocused
        state.settingsOpen = editor.settings != nil
        state.settingsTab = editor.settings?.tab ?? state.settingsTab
        state.fontSize = editor.settings?.fontSize ?? state.fontSize
        state.recentNoteIDs = recentNoteIDs
        return state
    }
}

/// Why the notes plugin cannot start.
enum NotesPluginError: Error, CustomStringConvertible {
    case missingOption(String)

    var description: String {
        switch self {
        case .missingOption(let name): "the option \(name) is missing; set it to the notes app's state directory"
        }
    }
}

@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer { PluginExport.descriptor(for: NotesPlugin.self) }
