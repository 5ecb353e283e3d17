import RestoredControl

/// Reads one archive for `show` and `dump`, from restored's state directory.
enum ArchiveReader {
    static func inspection(of app: String, state: StateOptions) async throws(ControlError) -> ArchiveInspection {
        let appID = try Console.parseAppIDs([app])[0]
        let daemon = state.stateDirectory == nil ? await DaemonClient.running() : nil
        defer { daemon?.close() }
        let store = await state.store(daemon: daemon)
        if state.stateDirectory == nil && daemon == nil { Console.offline(store) }
        var inspection = try ArchiveInspection(appID: appID, store: store)
        // What the daemon's last restore of the app left out, when it ran one.
        if let daemon, let record = try? await daemon.apps().first(where: { $0.app == appID.rawValue }),
           let last = record.last, last.action == "restore" {
            inspection.notRestored = last.objects
        }
        return inspection
    }
}
