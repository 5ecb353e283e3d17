import Foundation
import RestoredArchive
import RestoredControl

/// What every command shares: the environment, output, app ids and times.
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

    /// Parses app ids, before any file or bus is touched; an invalid one is a usage error.
    static func parseAppIDs(_ texts: [String]) throws(ControlError) -> [AppID] {
        var appIDs: [AppID] = []
        for text in texts {
            do {
                appIDs.append(try AppID(text))
            } catch {
                throw ControlError(.usage, error.description)
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
