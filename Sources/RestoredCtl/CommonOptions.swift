import ArgumentParser
import Foundation
import RestoredArchive
import RestoredControl
import SystemPackage

/// `--json`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON (a stable shape, see the README) instead of text.")
    var json = false
}

/// `--state-dir`, for the commands that read archives.
struct StateOptions: ParsableArguments {
    @Option(name: .customLong("state-dir"), help: "Where the archives are (default: restored's, or $XDG_STATE_HOME/restored when it is not running).", completion: .directory)
    var stateDirectory: String?

    /// The store to read, and whether restored is running (its own state
    /// directory is used then, unless one is given).
    func store(daemon: DaemonClient?) async throws(ControlError) -> ArchiveStore {
        if let stateDirectory { return ArchiveStore(directory: FilePath(stateDirectory)) }
        if let daemon {
            let directory = try await daemon.status().stateDirectory
            if !directory.isEmpty { return ArchiveStore(directory: FilePath(directory)) }
        }
        return ArchiveStore(directory: ArchiveStore.defaultDirectory(environment: ProcessInfo.processInfo.environment))
    }
}

/// Helpers every command shares.
enum Console {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static var style: TerminalStyle { .forStandardOutput(environment: environment) }

    /// Writes `text` to standard output as it is.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// One line on standard error, prefixed `restored-ctl: `.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data("restored-ctl: \(text)\n".utf8))
    }

    /// Prints `value` as JSON.
    static func json(_ value: some Encodable) throws(ControlError) {
        do {
            write(try JSONOutput.text(value))
        } catch {
            throw ControlError(.failure, "cannot print JSON: \(error)")
        }
    }

    /// Checks app ids before any file or bus is touched.
    static func appIDs(_ texts: [String]) throws(ControlError) -> [AppID] {
        var appIDs: [AppID] = []
        for text in texts {
            do {
                appIDs.append(try AppID(text))
            } catch {
                throw ControlError(.usage, "\(error.description)")
            }
        }
        return appIDs
    }

    /// A time for people: local, to the second.
    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// Says that restored is not running and the archives were read directly.
    static func offline(_ store: ArchiveStore) {
        note("restored is not running; read the archives in \(store.directory) directly")
    }
}
