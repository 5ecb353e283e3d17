public import Foundation

/// A command run to its end: its exit status and what it printed.
public struct CompletedCommand: Sendable {
    /// The exit status, or 128 + the signal that ended it.
    public let status: Int32
    /// Standard output.
    public let output: String
    /// Standard error.
    public let error: String

    /// Runs `path` with `arguments` and `environment`, standard input from
    /// /dev/null (not a terminal), and waits for it on a dispatch thread
    /// (never a cooperative one). Its output goes through files in
    /// `directory`, removed afterwards.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String], in directory: URL) async throws -> CompletedCommand {
        let result: Result<CompletedCommand, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { try runBlocking(path, arguments, environment: environment, in: directory) })
            }
        }
        return try result.get()
    }

    /// ``run(_:_:environment:in:)`` on the calling thread: for cleanup
    /// code that cannot wait asynchronously (a `deinit`).
    public static func runNow(_ path: String, _ arguments: [String], environment: [String: String], in directory: URL) throws -> CompletedCommand {
        try runBlocking(path, arguments, environment: environment, in: directory)
    }

    private static func runBlocking(_ path: String, _ arguments: [String], environment: [String: String], in directory: URL) throws -> CompletedCommand {
        let name = UUID().uuidString
        let outputFile = directory.appendingPathComponent("\(name).out").path
        let errorFile = directory.appendingPathComponent("\(name).err").path
        defer {
            try? FileManager.default.removeItem(atPath: outputFile)
            try? FileManager.default.removeItem(atPath: errorFile)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw ChildProcessError("cannot start \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 && errno == EINTR {}
        let exited = status & 0x7F == 0
        return CompletedCommand(
            status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F),
            output: (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        )
    }
}
