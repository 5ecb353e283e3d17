import Foundation

/// Executables a test makes (a stand-in program, a copy of a built one),
/// written by a process of their own and renamed into place.
///
/// A file this process holds open for writing is inherited by every child
/// another test spawns meanwhile (the tests run concurrently), and an
/// `exec` of the file fails with `ETXTBSY` for as long as such a child
/// lives. `cp` and `install` write in a process of their own, as dpkg does.
public enum ExecutableFile {
    /// Copies the executable `source` to `destination` (mode 0755).
    public static func copy(_ source: String, to destination: String) throws {
        let temporary = destination + ".new-\(getpid())"
        let run = try CompletedCommand.runNow(
            "/usr/bin/install", ["-m", "0755", source, temporary], environment: ["PATH": "/usr/bin:/bin"], in: URL(fileURLWithPath: "/")
        )
        guard run.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "install \(source) \(temporary): \(run.error)"])
        }
        guard rename(temporary, destination) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "rename to \(destination): \(String(cString: strerror(errno)))"])
        }
    }

    /// Writes `text` (a script) as the executable `destination` (mode 0755).
    public static func write(_ text: String, to destination: String) throws {
        // The text goes to a file that is never run, then is copied.
        let source = destination + ".text-\(getpid())"
        try text.write(toFile: source, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: source) }
        try copy(source, to: destination)
    }
}
