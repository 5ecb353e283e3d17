#if canImport(Glibc)
import Glibc
#endif
import CRestoredProcess
import SystemPackage
import SystemSupport

/// Runs a program to its end and keeps what it printed: for the short
/// commands plugins ask other programs (`tmux list-panes`), never for a
/// program the user keeps.
///
/// The program gets `/dev/null` as input and no other descriptor of the
/// caller. One that has not ended by the timeout is killed (SIGKILL): a
/// program that hangs must not hold up a save. A program that starts a
/// daemon (tmux starting its server) is done when the program itself is,
/// as long as the daemon lets go of the output (tmux's server does). Its
/// exit is seen through its pidfd, in the same `poll` as its output.
public struct ProgramRun: Hashable, Sendable {
    /// How it ended.
    public var ending: ProcessEnding
    /// What it printed on standard output.
    public var output: [UInt8]
    /// What it printed on standard error.
    public var errors: [UInt8]

    /// Standard output as text.
    public var outputText: String { String(decoding: output, as: UTF8.self) }
    /// Standard error as text, without surrounding blanks.
    public var errorText: String {
        var text = Substring(String(decoding: errors, as: UTF8.self))
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        return String(text)
    }

    /// Runs `executable` (an absolute path) with `arguments` (its name
    /// first) and `environment`, waiting at most `timeout`.
    public static func run(
        _ executable: String, arguments: [String], environment: [String: String], timeout: Duration
    ) throws(ProgramRunError) -> ProgramRun {
        // No time left: the program is not started at all (a step whose
        // budget is spent must not start what it cannot wait for).
        guard timeout > .zero else { throw .timedOut(command: arguments.joined(separator: " "), after: timeout) }
        let deadline = ContinuousClock.now + timeout
        let outputPipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        let errorPipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do {
            outputPipe = try pipe()
        } catch {
            throw .cannotSpawn(program: executable, error)
        }
        do {
            errorPipe = try pipe()
        } catch {
            try? outputPipe.readEnd.close()
            try? outputPipe.writeEnd.close()
            throw .cannotSpawn(program: executable, error)
        }
        defer {
            try? outputPipe.readEnd.close()
            try? errorPipe.readEnd.close()
        }
        let child: ChildProcess
        do {
            defer {
                try? outputPipe.writeEnd.close()
                try? errorPipe.writeEnd.close()
            }
            child = try ChildProcess.spawn(
                FilePath(executable), arguments: arguments, environment: environment,
                options: SpawnOptions(input: .null, output: .descriptor(outputPipe.writeEnd), errors: .descriptor(errorPipe.writeEnd))
            )
        } catch {
            throw .cannotSpawn(program: executable, error)
        }
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var open = [outputPipe.readEnd.rawValue, errorPipe.readEnd.rawValue]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var exited = false
        while !open.isEmpty {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw timedOut(child, arguments, timeout) }
            // Once the program has exited, what its pipes still hold is read
            // without waiting: a daemon it started may keep them open.
            var descriptors = (open + (exited ? [] : [child.exitDescriptor.rawValue])).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), exited ? 0 : left.pollMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            if exited && ready == 0 { break }
            for descriptor in descriptors where descriptor.revents != 0 {
                if descriptor.fd == child.exitDescriptor.rawValue {
                    exited = true
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if descriptor.fd == outputPipe.readEnd.rawValue {
                        output += buffer[..<count]
                    } else {
                        errors += buffer[..<count]
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == descriptor.fd }
                }
            }
        }
        // The output is closed or the program has exited.
        guard let ending = child.wait(until: deadline) else { throw timedOut(child, arguments, timeout) }
        return ProgramRun(ending: ending, output: output, errors: errors)
    }

    /// A pipe whose ends are close-on-exec: no other child started
    /// meanwhile by another thread holds its writing end open.
    private static func pipe() throws(Errno) -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        guard c_restored_process_pipe(&ends) == 0 else { throw Errno(rawValue: errno) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    private static func timedOut(_ child: ChildProcess, _ arguments: [String], _ timeout: Duration) -> ProgramRunError {
        child.reap(within: .zero)
        return .timedOut(command: arguments.joined(separator: " "), after: timeout)
    }
}
