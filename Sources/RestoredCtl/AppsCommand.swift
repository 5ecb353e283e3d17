import ArgumentParser
import RestoredArchive
import RestoredControl

/// `restored-ctl apps`.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps: archive time, size, generation in use, ignore-snapshot, last result.",
        discussion: """
            Under the table, one line per object the last save left out (a partial save) or the last \
            restore did not restore, with why. Without restored running, reads the archives directly \
            (there is no last result then).
            """
    )

    @OptionGroup var output: OutputOptions
    @OptionGroup var state: StateOptions

    func run() async throws {
        let apps: [AppRecord]
        if state.stateDirectory == nil, let daemon = await DaemonClient.running() {
            defer { daemon.close() }
            apps = try await daemon.apps()
        } else {
            let store = await state.store(daemon: nil)
            if state.stateDirectory == nil { Console.offline(store) }
            let appIDs: [AppID]
            do throws(ArchiveStoreError) {
                appIDs = try store.appIDs()
            } catch {
                throw ControlError(.failure, error.description)
            }
            apps = appIDs.map { AppRecord(appID: $0, store: store) }
        }
        if output.json { return try Console.json(apps) }
        var table = TextTable(header: ["APP", "ARCHIVE TIME", "SIZE", "GENERATION", "IGNORE-SNAPSHOT", "LAST RESULT"])
        for app in apps {
            let generation = app.generation.map { "\($0)\(app.generationFile == "archive.previous" ? " (previous)" : "")" } ?? "-"
            let archiveTime = app.archiveTime.map(Console.time) ?? (app.problem.map { _ in "unusable" } ?? "none")
            table.rows.append([
                app.app, archiveTime, app.archiveSize.map { ByteCount.text(Int($0)) } ?? "-", generation,
                app.hasArchive ? (app.ignoreSnapshot ? "yes" : "no") : "-", app.lastResultSummary,
            ])
        }
        var text = table.text(style: Console.style)
        for line in apps.flatMap(\.leftOutLines) { text += line + "\n" }
        Console.write(text)
    }
}
