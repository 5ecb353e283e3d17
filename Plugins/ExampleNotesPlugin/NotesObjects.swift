import FoundationEssentials
import RestorationKit

/// The main window: the root, and the presentation context of the app (R4).
final class NotesWindow: RestorableObject {
    var restorationIdentifier: String? = "Main"
    var restorationClass: (any RestorationClass.Type)?
    var size: [Double] = [800, 600]
    let toolbar: Toolbar
    let split: SplitView

    init(toolbar: Toolbar, split: SplitView) {
        self.toolbar = toolbar
        self.split = split
    }

    var restorationChildren: [any RestorableObject] { [toolbar, split] }
    var definesPresentationContext: Bool { true }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(size, forKey: "size")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        size = try coder.decode([Double].self, forKey: "size") ?? size
    }
}

/// The toolbar has no identifier, so it and its search field are excluded
/// from preservation (R1, R2).
final class Toolbar: RestorableObject {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)?
    let search = SearchField()

    var restorationChildren: [any RestorableObject] { [search] }
}

/// Has an identifier, but its parent has none: never preserved (R2).
final class SearchField: RestorableObject {
    var restorationIdentifier: String? = "Search"
    var restorationClass: (any RestorationClass.Type)?
    var query = ""

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(query, forKey: "query")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        query = try coder.decode(String.self, forKey: "query") ?? ""
    }
}

/// A split container: it saves references to its children and relinks them
/// when decoding (R9, R14).
final class SplitView: RestorableObject {
    var restorationIdentifier: String? = "Split"
    var restorationClass: (any RestorationClass.Type)?
    var divider = 0.3
    var panes: [any RestorableObject]

    init(panes: [any RestorableObject]) {
        self.panes = panes
    }

    var restorationChildren: [any RestorableObject] { panes }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(divider, forKey: "divider")
        try coder.encode(panes, forKey: "panes")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        divider = try coder.decode(Double.self, forKey: "divider") ?? divider
        let restored = try coder.decodeObjects(forKey: "panes")
        if restored.count == panes.count { panes = restored }
    }
}

/// The list of notes. Selection and scroll position are saved by note id,
/// not by row (R11), so they survive a reordered list.
final class NotesList: RestorableObject, ModelAssociation {
    var restorationIdentifier: String? = "List"
    var restorationClass: (any RestorationClass.Type)?
    /// The note ids in display order: the model, read from the app's files.
    var order: [String]
    var selectedIndices: [Int] = []
    var firstVisibleIndex = 0

    init(order: [String]) {
        self.order = order
    }

    func modelIdentifier(forElementAt index: Int) -> String? {
        order.indices.contains(index) ? order[index] : nil
    }

    func index(forElementWithModelIdentifier identifier: String) -> Int? {
        order.firstIndex(of: identifier)
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encodeModelIdentifiers(forElementsAt: selectedIndices, using: self, forKey: "selection")
        try coder.encodeModelIdentifiers(forElementsAt: [firstVisibleIndex], using: self, forKey: "firstVisible")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        selectedIndices = try coder.decodeElementIndices(forKey: "selection", using: self)
        firstVisibleIndex = try coder.decodeElementIndices(forKey: "firstVisible", using: self).first ?? 0
    }
}

/// The editor: which note (a reference to data), the unsaved draft, the
/// cursor and focus. It may present the settings sheet, which hangs under
/// the window, the presentation context (R4).
final class Editor: RestorableObject {
    var restorationIdentifier: String? = "Editor"
    var restorationClass: (any RestorationClass.Type)?
    var noteID: String?
    var text = ""
    var cursor = 0
    var isFocused = false
    var settings: SettingsSheet?

    var presentedObjects: [any RestorableObject] { settings.map { [$0] } ?? [] }

    func encodeRestorableState(with coder: StateCoder) throws {
        if let noteID { try coder.encode(noteID, forKey: "note") }
        try coder.encode(text, forKey: "draft")
        try coder.encode(cursor, forKey: "cursor")
        try coder.encode(isFocused, forKey: "focused")
        if let settings { try coder.encode(settings, forKey: "presented") }
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        noteID = try coder.decode(String.self, forKey: "note")
        text = try coder.decode(String.self, forKey: "draft") ?? ""
        cursor = min(try coder.decode(Int.self, forKey: "cursor") ?? 0, text.count)
        isFocused = try coder.decode(Bool.self, forKey: "focused") ?? false
        settings = try coder.decodeObject(forKey: "presented") as? SettingsSheet
    }
}

/// The settings sheet exists only while presented, so its restoration class
/// recreates it (R8 step 1).
final class SettingsSheet: RestorableObject, RestorationClass {
    var restorationIdentifier: String? = "Settings"
    var restorationClass: (any RestorationClass.Type)? = SettingsSheet.self
    var tab = "general"
    var fontSize = 13.0

    static var restorationClassName: String { "SettingsSheet" }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        // Minimal initialisation; the state is decoded later (R9).
        SettingsSheet()
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(tab, forKey: "tab")
        try coder.encode(fontSize, forKey: "fontSize")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        tab = try coder.decode(String.self, forKey: "tab") ?? tab
        fontSize = try coder.decode(Double.self, forKey: "fontSize") ?? fontSize
    }
}
