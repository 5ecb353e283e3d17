import RestorationKit

/// What a zathura window shows.
struct Document {
    var path: String
    /// The page, from 0 (zathura's `pagenumber`).
    var page: Int64
}

/// The root: one child per open document.
final class DocumentsObject: RestorableObject {
    var restorationIdentifier: String? = "Documents"
    var restorationClass: (any RestorationClass.Type)?
    var documents: [DocumentObject] = []
    var restorationChildren: [any RestorableObject] { documents }
}

/// One zathura window, known by its file and its order among the windows
/// showing that file: `%2Fhome%2Fada%2Fpaper.pdf#2`.
final class DocumentObject: RestorableObject {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = DocumentRestoration.self
    var document: Document?
    let copy: Int

    /// The object of `document`, the `copy`-th window showing its file.
    init(_ document: Document, copy: Int) {
        self.document = document
        self.copy = copy
        restorationIdentifier = Self.escaped(document.path) + "#\(copy)"
    }

    /// The object a restore recreates at `identifier`; its state follows.
    init(identifier: String, copy: Int) {
        self.copy = copy
        restorationIdentifier = identifier
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        guard let document else { return }
        try coder.encode(document.path, forKey: "path")
        try coder.encode(document.page, forKey: "page")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        guard let path = try coder.decode(String.self, forKey: "path"), path.hasPrefix("/") else { return }
        document = Document(path: path, page: try coder.decode(Int64.self, forKey: "page") ?? 0)
    }

    /// `path` with `%`, `/` and `#` escaped: one identifier, never a path.
    static func escaped(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "/": escaped += "%2F"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// The copy's number at the end of an identifier.
    static func copy(ofIdentifier identifier: String) -> Int? {
        identifier.split(separator: "#").last.flatMap { Int($0) }
    }
}

/// Recreates a saved window's object; ``ZathuraPlugin`` starts its zathura
/// once every object is back.
enum DocumentRestoration: RestorationClass {
    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? ZathuraPlugin, let identifier = path.last, let copy = DocumentObject.copy(ofIdentifier: identifier) else {
            return nil
        }
        let object = DocumentObject(identifier: identifier, copy: copy)
        plugin.documents.documents.append(object)
        return object
    }
}
