import Foundation
import ProcessSpawning
import SystemSupport

/// `restored-ctl` against the run's restored (on the private bus): the
/// same commands a plugin's author runs by hand, their `--json` read with
/// the shapes `docs/admin-api.md` documents.
struct ControlClient: Sendable {
    /// A plugin file as `restored-ctl plugins --json` shows it.
    struct Plugin: Decodable, Sendable {
        /// The plugin file.
        let file: String
        /// The app it serves, when loaded.
        let app: String?
        /// `loaded`, `quarantined` or `refused`.
        let state: String
        /// The refusal or quarantine with what to do, or a note.
        let reason: String?
    }

    /// An object a save left out or a restore did not restore.
    struct LeftOut: Decodable, Sendable {
        /// Its restoration path.
        let path: String
        /// Why.
        let reason: String
    }

    /// An app's last save or restore.
    struct LastResult: Decodable, Sendable {
        /// `save` or `restore`.
        let action: String
        /// What caused it (`request`, `login`, `stop` …).
        let trigger: String
        /// One word: `saved`, `restored`, `declined` …
        let outcome: String
        /// More for people.
        let detail: String
        /// What it left out or did not restore.
        let objects: [LeftOut]
    }

    /// An app as `restored-ctl apps --json` shows it.
    struct App: Decodable, Sendable {
        /// The app id.
        let app: String
        /// Whether a restore is under way.
        let restoring: Bool
        /// Whether a usable archive is stored.
        let hasArchive: Bool
        /// The generation a restore would read.
        let generation: UInt64?
        /// Why the archive is unusable, if it is.
        let problem: String?
        /// The last save or restore since restored started.
        let last: LastResult?
    }

    /// One object of an archive (`restored-ctl show --json`).
    struct ArchivedObject: Decodable, Sendable {
        /// Its restoration path.
        let path: String
        /// Its class.
        let className: String
    }

    /// An object a save carried over from the archive before.
    struct CarriedObject: Decodable, Sendable {
        /// Its restoration path (its subtree came with it).
        let path: String
        /// When its state was saved, ISO 8601, if known.
        let savedAt: String?
    }

    /// What `restored-ctl show --json` says of an archive, as far as the run needs.
    struct Outline: Decodable, Sendable {
        /// The generation read.
        let generation: UInt64
        /// Its objects, parents first.
        let objects: [ArchivedObject]
        /// The objects carried over from the archive before (absent from
        /// a restored-ctl older than carrying over).
        let carriedOver: [CarriedObject]?
    }

    /// `restored-ctl`.
    let executable: String
    /// Its environment: the caller's, with the private bus as the session bus.
    let environment: [String: String]

    /// `restored-ctl ARGUMENTS`, at most `timeout`.
    func run(_ arguments: [String], timeout: Duration = .seconds(20)) async throws(PluginTestError) -> ProgramRun {
        try await ProgramRun.runOffPool(executable, ["restored-ctl"] + arguments, environment: environment, timeout: timeout)
    }

    /// `restored-ctl plugins --json`.
    func plugins() async throws(PluginTestError) -> [Plugin] {
        try await decoded([Plugin].self, ["plugins", "--json"])
    }

    /// `restored-ctl apps --json` (with `stateDirectory`: read from the
    /// archives there, with no last results).
    func apps(stateDirectory: String? = nil) async throws(PluginTestError) -> [App] {
        try await decoded([App].self, ["apps", "--json"] + (stateDirectory.map { ["--state-dir", $0] } ?? []))
    }

    /// The app `appID` of ``apps(stateDirectory:)``, or nil.
    func app(_ appID: String, stateDirectory: String? = nil) async throws(PluginTestError) -> App? {
        try await apps(stateDirectory: stateDirectory).first { $0.app == appID }
    }

    /// `restored-ctl show APP --json`.
    func outline(of appID: String) async throws(PluginTestError) -> Outline {
        try await decoded(Outline.self, ["show", appID, "--json"])
    }

    private func decoded<Value: Decodable>(_ type: Value.Type, _ arguments: [String]) async throws(PluginTestError) -> Value {
        let command = "restored-ctl " + arguments.joined(separator: " ")
        let run = try await run(arguments)
        guard run.ending == .exited(0) else {
            throw .controlFailed(command: command, message: run.errorText.isEmpty ? "it ended with \(run.ending)" : run.errorText)
        }
        do {
            return try JSONDecoder().decode(type, from: Data(run.output))
        } catch {
            throw .controlFailed(command: command, message: "its JSON could not be read (\(error)); is restored-ctl of the same build as this program?")
        }
    }
}
