import RestoredControl

/// Reads one archive for `show` and `dump`, from restored's state directory.
enum ArchiveReader {
    static func inspection(of app: String, state: StateOptions) async throws(ControlError) -> ArchiveInspection {
        let appID = try Console.parseAppIDs([app])[0]
        let daemon = state.stateDirectory == nil ? await DaemonClient.running() : nil
        defer { daemon?.close() }
        let store = await state.store(daemon: daemon)
        if state.stateDirectory == nil && daemon == nil { Console.offline(store) }
        return try ArchiveInspection(appID: appID, store: store)
    }
}
