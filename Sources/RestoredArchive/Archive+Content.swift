extension Archive {
    /// Whether `other` holds the same saved state: everything but the
    /// timestamp, the generation, the restore-attempt counter and the system
    /// version. Autosave writes an archive only when this is false.
    public func hasSameContent(as other: Archive) -> Bool {
        appID == other.appID && appVersion == other.appVersion && plugin == other.plugin
            && ignoresSnapshot == other.ignoresSnapshot && appState == other.appState
            && objects == other.objects && snapshot == other.snapshot && droppedObjects == other.droppedObjects
            && carriedObjects == other.carriedObjects
    }
}
