import RestoredArchive

extension ArchivedObject.Kind {
    /// `child`, `presented` or `manual`, as the JSON outputs say.
    var name: String {
        switch self {
        case .child: "child"
        case .presented: "presented"
        case .manual: "manual"
        }
    }
}
