import Glibc

/// What the run prints: a line per step on standard output, details
/// indented under it, warnings marked, and at a failure one last line on
/// standard error naming the step. Each line is one write(2), unbuffered,
/// so that standard output and standard error keep their order in a
/// shared pipe.
enum RunReport {
    /// The program's name, which starts the failure line.
    static let program = "restored-plugin-test"

    /// A step's line: `save: saved, generation 1, 3 objects`.
    static func step(_ name: String, _ text: String) {
        write("\(name): \(text)", to: STDOUT_FILENO)
    }

    /// A detail of the step above, indented.
    static func detail(_ text: String) {
        write("    \(text)", to: STDOUT_FILENO)
    }

    /// Something the author should look at that does not fail the run.
    static func warning(_ text: String) {
        write("    warning: \(text)", to: STDOUT_FILENO)
    }

    /// The run's last line when it worked.
    static func success(_ text: String) {
        write("ok: \(text)", to: STDOUT_FILENO)
    }

    /// The run's last line when it did not: which step failed, and why.
    static func failure(step: String, _ text: String) {
        error("failed at \(step): \(text)")
    }

    /// One line on standard error, after the program's name.
    static func error(_ text: String) {
        write("\(program): \(text)", to: STDERR_FILENO)
    }

    /// The last lines of a log, under a line saying whose they are.
    static func logTail(_ path: String, lines: Int = 15) {
        guard let tail = RunDirectory.tail(of: path, lines: lines) else { return }
        write("the last lines of \(path):", to: STDOUT_FILENO)
        for line in tail { detail(line) }
    }

    private static func write(_ line: String, to descriptor: Int32) {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
