import ArgumentParser
import Foundation
import RestoredArchive
import RestoredControl
import SystemPackage

/// `--state-dir`, for the commands that read archives.
struct StateOptions: ParsableArguments {
    @Option(
        name: .customLong("state-dir"),
        help: "Where the archives are (default: restored's, or $XDG_STATE_HOME/restored when it is not running).",
        completion: .directory
    )
    var stateDirectory: String?

    /// The store to read: `--state-dir`, else the state directory restored
    /// reports when `daemon` is given and answers, else the default one.
    func store(daemon: DaemonClient?) async -> ArchiveStore {
        if let stateDirectory { return ArchiveStore(directory: FilePath(stateDirectory)) }
        if let daemon, let directory = try? await daemon.stateDirectory(), !directory.isEmpty {
            return ArchiveStore(directory: FilePath(directory))
        }
        return ArchiveStore(directory: ArchiveStore.defaultDirectory(environment: ProcessInfo.processInfo.environment))
    }
}
