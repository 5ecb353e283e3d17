public import RestoredState

extension Archive {
    /// This archive, as a plugin host sent it, with each object it carries
    /// over filled in from `sources`: the app's archives as they are before
    /// this save, the newest first (its newest generation, then the last
    /// complete one kept beside a partial one). Each carried object comes
    /// from the first source that holds it, with its subtree as saved there
    /// and the carried records of that subtree; its time is the one of the
    /// save its state came from (the source's carried record for it or an
    /// ancestor, else the source's own time).
    ///
    /// A carried path is left out, and the archive says why (it is then
    /// partial), when no source holds it, and when a host sent what no
    /// walk makes (R16: hosts are not trusted): the empty path, a path
    /// carried twice or under another carried one, a path this save also
    /// wrote or wrote under, a path whose parent this save did not write.
    /// The restore-attempt count starts again at 0, as for any new save.
    public func fillingCarriedObjects(from sources: [Archive]) -> Archive {
        guard !carriedObjects.isEmpty else { return self }
        var filled = self
        filled.carriedObjects = []
        filled.restoreAttempts = 0
        let written = Set(objects.map(\.path))
        var carried: [ObjectPath] = []
        func omit(_ path: ObjectPath, _ reason: String) {
            filled.droppedObjects.append(OmittedObject(path: path, reason: reason))
        }
        for request in carriedObjects.sorted(by: { $0.path.depth < $1.path.depth }) {
            let path = request.path
            guard !path.components.isEmpty,
                  !carried.contains(where: { path == $0 || path.isUnder($0) }),
                  !objects.contains(where: { $0.path == path || $0.path.isUnder(path) }),
                  path.depth == 1 || path.parent.map(written.contains) == true
            else {
                omit(path, "its plugin host asked to carry over what no walk makes (an empty, repeated or overlapping path, or one without its parent); it is not saved (R16)")
                continue
            }
            guard let source = sources.first(where: { $0.objects.contains { $0.path == path } }) else {
                omit(path, "its plugin carried it over, but the last archive holds no state for it; it is not saved (R6)")
                continue
            }
            carried.append(path)
            // Parents come before children: the carried object's parent was
            // written by this save, and its subtree follows it as it was.
            filled.objects += source.objects.filter { $0.path == path || $0.path.isUnder(path) }
            let origin = source.carriedObjects.filter { path == $0.path || path.isUnder($0.path) }.max { $0.path.depth < $1.path.depth }
            filled.carriedObjects.append(CarriedObject(path: path, since: origin?.since ?? source.timestamp))
            filled.carriedObjects += source.carriedObjects.filter { $0.path.isUnder(path) }
        }
        return filled
    }
}

extension ObjectPath {
    /// Whether this path lies strictly under `ancestor`.
    public func isUnder(_ ancestor: ObjectPath) -> Bool {
        components.count > ancestor.components.count && components.starts(with: ancestor.components)
    }
}
