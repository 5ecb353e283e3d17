import ArgumentParser
import RestoredArchive
import RestoredControl

/// `restored-ctl verify`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the integrity of archives and their previous generations (all apps when none is named).",
        discussion: "Exits 4 when any file is corrupt or unusable, naming it."
    )

    @Argument(help: "App ids, like org.example.Notes.")
    var apps: [String] = []

    @OptionGroup var output: OutputOptions
    @OptionGroup var state: StateOptions

    func run() async throws {
        var appIDs = try Console.parseAppIDs(apps)
        let daemon = state.stateDirectory == nil ? await DaemonClient.running() : nil
        defer { daemon?.close() }
        let store = await state.store(daemon: daemon)
        if state.stateDirectory == nil && daemon == nil { Console.offline(store) }
        if appIDs.isEmpty {
            do throws(ArchiveStoreError) {
                appIDs = try store.appIDs()
            } catch {
                throw ControlError(.failure, error.description)
            }
        }
        let records = appIDs.map { appID in
            var record = VerifyRecord(store.verify(appID))
            record.partial = (try? store.summary(of: appID))?.seal.isPartial ?? false
            return record
        }
        let missing = records.filter { !$0.exists && !apps.isEmpty }
        if !missing.isEmpty {
            throw ControlError(.failure, "no archive for \(missing.map(\.app).joined(separator: ", ")) in \(store.directory) (known apps: restored-ctl apps)")
        }
        if output.json {
            try Console.json(records)
        } else {
            var table = TextTable(header: ["APP", "RESULT", "CURRENT", "PREVIOUS"])
            let style = Console.style
            for record in records {
                table.rows.append([record.app, record.ok ? style.green("ok") : style.red("CORRUPT"), record.current.summary, record.previous.summary])
            }
            var text = table.text(style: style)
            for record in records where record.partial {
                text += "\(record.app): intact, but partial: its last save left objects out (restored-ctl show \(record.app) names them)\n"
            }
            for record in records where record.lastComplete.status != "absent" {
                text += "\(record.app): the last complete archive, kept beside partial saves (archive.complete): \(record.lastComplete.summary)\n"
            }
            Console.write(text)
        }
        let corrupt = records.filter { !$0.ok }
        if !corrupt.isEmpty {
            let names = corrupt.map(\.app).joined(separator: ", ")
            throw ControlError(.corruptArchive, "corrupt archive: \(names) (restored-ctl discard \(corrupt.map(\.app).joined(separator: " ")) removes it; a restore reads the other generation when it is ok)")
        }
    }
}
