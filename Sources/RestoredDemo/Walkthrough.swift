import ArgumentParser
import Foundation
import Logging
import RestoredArchive
import RestoredEngine
import SystemPackage

/// The self-contained story: save two apps, kill them, restore them, compare.
struct Walkthrough: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "walkthrough",
        abstract: "Play save -> kill -> restore with the example plugins in a temporary directory."
    )

    @Option(name: .customLong("plugin-dir"), help: "Where the example plugins are built (default: beside this program).")
    var pluginDirectory: String?

    @Flag(help: "Keep the temporary directory and print its path.")
    var keep = false

    func run() throws {
        let logger = DemoLogging.logger()
        let workspace = try Workspace(keep: keep)
        defer { workspace.finish() }

        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let buildDirectory = pluginDirectory.map { FilePath(URL(fileURLWithPath: $0).path) } ?? FilePath(executable).removingLastComponent()
        let plugins = workspace.root.appending("plugins")
        try workspace.link(["libExampleNotesPlugin.so", "libExampleCounterPlugin.so"], from: buildDirectory, into: plugins)

        let notesLive = workspace.root.appending("notes-app")
        let counterLive = workspace.root.appending("counter-app")
        let saved = try ExampleApps.seed(notes: notesLive, counter: counterLive)
        let options: [String: [String: String]] = [
            "org.example.Notes": ["live-dir": notesLive.string],
            "org.example.Counter": ["live-state": counterLive.appending("state").string],
        ]

        let store = ArchiveStore(directory: workspace.root.appending("state/restored"))
        let engine = RestorationEngine(store: store, logger: logger)
        let catalog = PluginLoader(directories: [plugins]).load(logger: logger)
        say("1. Loaded \(catalog.plugins.count) plugins from \(plugins.string):")
        for plugin in catalog.plugins { say("   \(plugin.appID)  \(plugin.displayName)  (\(plugin.file.lastComponent?.string ?? ""))") }
        for refusal in catalog.refusals { say("   refused: \(refusal)") }
        guard catalog.plugins.count == 2 else {
            throw ValidationError("the example plugins did not load; build them with `swift build` first")
        }

        say("\n2. The apps are running. The notes app shows note \"\(saved.selectedNote)\" selected, a draft being typed, the settings sheet open.")
        say("   Suspend is coming: restored asks each plugin to encode its state.")
        for plugin in catalog.plugins {
            let session = try plugin.makeSession(options: options[plugin.appID.rawValue] ?? [:], logger: logger)
            let report = engine.preserve(session)
            say("   \(report.appID): \(report.outcome), \(report.savedPaths.count) objects, \(report.archiveBytes) bytes")
            for path in report.savedPaths { say("      saved \(path)") }
            if report.skippedWithoutIdentifier > 0 { say("      skipped \(report.skippedWithoutIdentifier) object(s) without restoration identifier, with their subtrees (R2)") }
            for issue in report.issues { say("      note: \(issue)") }
        }

        say("\n3. The machine powers off. The apps' windows are gone; meanwhile a sync reorders the notes list.")
        try ExampleApps.kill(notes: notesLive, counter: counterLive)

        say("\n4. Next login: each plugin restores its app into a fresh instance.")
        for plugin in catalog.plugins {
            let session = try plugin.makeSession(options: options[plugin.appID.rawValue] ?? [:], logger: logger)
            let report = engine.restore(session)
            say("   \(report.appID): \(report.outcome), \(report.restoredPaths.count) objects restored, snapshot \(report.snapshot)")
            for issue in report.issues { say("      note: \(issue)") }
        }

        say("\n5. What came back:")
        let differences = try ExampleApps.compare(saved: saved, notes: notesLive, counter: counterLive)
        for line in differences.report { say("   \(line)") }
        say("\n   Archives: \(store.directory.string)/<app-id>/archive (kept: \(keep ? "yes" : "no, pass --keep"))")
        guard differences.allRestored else { throw ExitCode.failure }
        say("\nEverything that was saved was restored.")
    }

    private func say(_ line: String) {
        print(line)
    }
}

/// A temporary directory removed at the end unless kept.
struct Workspace {
    let root: FilePath
    let keep: Bool

    init(keep: Bool) throws {
        var template = Array("/tmp/restored-demo-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ValidationError("cannot create a temporary directory") }
        root = FilePath(String(cString: made))
        self.keep = keep
    }

    func link(_ names: [String], from source: FilePath, into directory: FilePath) throws {
        try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true)
        for name in names {
            let target = source.appending(name)
            guard FileManager.default.fileExists(atPath: target.string) else {
                throw ValidationError("\(target.string) is missing; run `swift build` first")
            }
            try FileManager.default.createSymbolicLink(atPath: directory.appending(name).string, withDestinationPath: target.string)
        }
    }

    func finish() {
        if keep {
            print("(kept \(root.string))")
        } else {
            try? FileManager.default.removeItem(atPath: root.string)
        }
    }
}
