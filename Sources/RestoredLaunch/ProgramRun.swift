import CRestoredLaunchSupport
import Glibc
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
/// as long as the daemon lets go of the output (tmux's server does).
public struct ProgramRun: Hashable, Sendable {
    /// How the program ended.
    public enum Ending: Hashable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
    }

    /// How it ended.
    public var ending: Ending
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
    ) throws(LaunchError) -> ProgramRun {
        var pid: pid_t = 0
        var outputDescriptor: Int32 = -1
        var errorDescriptor: Int32 = -1
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let error = withCStrings(arguments) { argv in
            withCStrings(variables) { envp in
                c_restored_spawn_captured(executable, argv, envp, &outputDescriptor, &errorDescriptor, &pid)
            }
        }
        guard error == 0 else {
            throw .cannotSpawn(program: executable, Errno(rawValue: error))
        }
        let deadline = ContinuousClock.now + timeout
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var open = [outputDescriptor, errorDescriptor]
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer {
            close(outputDescriptor)
            close(errorDescriptor)
        }
        while !open.isEmpty {
            let remaining = deadline - .now
            guard remaining > .zero else {
                kill(pid, SIGKILL)
                _ = wait(for: pid)
                throw .timedOut(command: arguments.joined(separator: " "), after: timeout)
            }
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), remaining.pollMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            for descriptor in descriptors where descriptor.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if descriptor.fd == outputDescriptor {
                        output += buffer[..<count]
                    } else {
                        errors += buffer[..<count]
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == descriptor.fd }
                }
            }
        }
        // The output is closed: the program is ending, or it lives on without it.
        while true {
            if let ending = wait(for: pid, blocking: false) {
                return ProgramRun(ending: ending, output: output, errors: errors)
            }
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                _ = wait(for: pid)
                throw .timedOut(command: arguments.joined(separator: " "), after: timeout)
            }
            usleep(1000)
        }
    }

    /// Reaps `pid`; nil when it has not ended and `blocking` is false.
    private static func wait(for pid: pid_t, blocking: Bool = true) -> Ending? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if reaped < 0 && errno == EINTR { continue }
            guard reaped == pid else { return reaped == 0 ? nil : .exited(-1) }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
            return .signaled(status & 0x7f)
        }
    }

    /// The first executable named `program` in `path` (a `PATH` value),
    /// or nil.
    public static func executable(named program: String, in path: String) -> String? {
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `body` with `strings` as a NULL-terminated C array (argv, envp).
    public static func withCStrings<Result>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
