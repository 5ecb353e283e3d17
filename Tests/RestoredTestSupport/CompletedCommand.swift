public import Foundation
import ProcessSpawning
import SystemPackage
import SystemSupport

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
        try await OffPool.run { () throws(CompletedCommandError) in
            do {
                return try runBlocking(path, arguments, environment: environment, in: directory)
            } catch {
                throw CompletedCommandError(description: "\(error)")
            }
        }
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
        // Through files, not pipes: a program that leaves a daemon behind
        // (tmux starting its server) is done when it exits itself.
        func create(_ path: String) throws -> FileDescriptor {
            try FileDescriptor.open(FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: .ownerReadWrite)
        }
        let output = try create(outputFile)
        defer { try? output.close() }
        let errors = try create(errorFile)
        defer { try? errors.close() }
        let child: ProcessSpawning.ChildProcess
        do {
            child = try ProcessSpawning.ChildProcess.spawn(
                FilePath(path), arguments: [path] + arguments, environment: environment,
                options: SpawnOptions(input: .null, output: .descriptor(output), errors: .descriptor(errors))
            )
        } catch {
            throw ChildProcessError("cannot start \(path): \(error)")
        }
        let ending = child.reap(within: .seconds(365 * 86_400))
        let status: Int32
        switch ending {
        case .exited(let code): status = code
        case .signaled(let signal): status = 128 + signal
        }
        return CompletedCommand(
            status: status,
            output: (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        )
    }
}

/// Why a command could not be run (not how it ended: that is its status).
public struct CompletedCommandError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
}
