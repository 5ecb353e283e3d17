public import RestoredState

extension Archive {
    /// This archive, as a plugin host sent it, with each object it carries
    /// over filled in from `last` (the app's newest archive; nil when it has
    /// none): the object at the carried path and its subtree, as they were
    /// saved, each record keeping the time of the save it came from. A
    /// carried path `last` holds nothing for is left out, and the archive
    /// says why (it is partial).
    public func fillingCarriedObjects(from last: Archive?) -> Archive {
        guard !carriedObjects.isEmpty else { return self }
        var filled = self
        filled.carriedObjects = []
        for carried in carriedObjects {
            let subtree = last?.objects.filter { $0.path == carried.path || $0.path.isUnder(carried.path) } ?? []
            guard let last, subtree.contains(where: { $0.path == carried.path }) else {
                filled.droppedObjects.append(OmittedObject(
                    path: carried.path,
                    reason: "its plugin carried it over, but the last archive holds no state for it; it is not saved (R6)"
                ))
                continue
            }
            // Parents come before children: the carried object's parent was
            // walked in this save, and its subtree follows it as it was.
            filled.objects += subtree
            let since = last.carriedObjects.first { $0.path == carried.path }?.since ?? last.timestamp
            filled.carriedObjects.append(CarriedObject(path: carried.path, since: since))
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
