import ArgumentParser
import Foundation
import RestoredControl
import RestoredEngine

/// `restored-ctl`: see and steer restored.
@main
struct RestoredCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restored-ctl",
        abstract: "See and steer restored, the session-restore service.",
        discussion: """
            Talks to restored over the session bus (org.restored1). apps, show, dump and verify \
            also work when restored is not running: they read the archives directly and say so. \
            Quiet on success; errors are one line on standard error. --json prints a stable \
            shape (see docs/admin-api.md). Colour only on a terminal, never with NO_COLOR.

            Exit status: 0 success; 1 failure (unknown app, no archive, busy, a failed save or \
            restore, a failed doctor check); 2 usage error (bad option, invalid app id); 3 \
            restored or the session bus unreachable; 4 corrupt archive.
            """,
        version: RestoredVersion.string,
        subcommands: [
            StatusCommand.self, AppsCommand.self, PluginsCommand.self, SaveCommand.self, RestoreCommand.self,
            DiscardCommand.self, IgnoreSnapshotCommand.self, ShowCommand.self, DumpCommand.self, VerifyCommand.self,
            DoctorCommand.self, ReloadCommand.self,
        ]
    )

    /// Runs the command line and exits with the documented statuses; every
    /// error is one line on standard error.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(ExitStatus.success.rawValue)
        } catch let error as ControlError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            Foundation.exit(error.status.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(ExitStatus.success.rawValue)
            }
            let line = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            FileHandle.standardError.write(Data("restored-ctl: \(line) (restored-ctl --help says more)\n".utf8))
            Foundation.exit(code == .validationFailure ? ExitStatus.usage.rawValue : ExitStatus.failure.rawValue)
        }
    }
}
