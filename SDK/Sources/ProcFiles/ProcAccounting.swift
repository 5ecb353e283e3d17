import FoundationEssentials

/// What `/proc/PID` says of a process's costs, for the benchmarks: CPU
/// time, memory, bytes written and each thread's context switches. Like
/// ``ProcProcess``, every function takes the `/proc` root and answers nil
/// for a process that is gone.
public enum ProcAccounting {
    /// The number of a `key: N` line (`VmRSS:   12 kB`, `write_bytes: 4096`)
    /// of the process's `file` (`status`, `smaps_rollup`, `io`, or a
    /// thread's `task/TID/status`).
    public static func number(_ key: String, inFile file: String, of pid: Int32, proc: String = "/proc") -> Int? {
        guard let text = ProcFile.text(atPath: "\(proc)/\(pid)/\(file)") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return line.dropFirst(key.count + 1).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
        }
        return nil
    }

    /// The CPU time it has used, user and system, in clock ticks (`stat`'s
    /// utime and stime).
    public static func cpuTicks(of pid: Int32, proc: String = "/proc") -> UInt64? {
        guard let fields = ProcProcess.statFields(of: pid, proc: proc), fields.count > 12,
              let user = UInt64(fields[11]), let system = UInt64(fields[12])
        else { return nil }
        return user + system
    }

    /// Whether it has exited and waits to be reaped (state `Z`).
    public static func isZombie(_ pid: Int32, proc: String = "/proc") -> Bool {
        ProcProcess.statFields(of: pid, proc: proc)?.first == "Z"
    }

    /// One thread's context switches, voluntary and not, and whether it
    /// waits in `epoll` (libdispatch's event manager does).
    public struct ThreadSwitches: Hashable, Sendable {
        /// Voluntary and involuntary switches together.
        public var count: Int
        /// Whether its wait channel is epoll's.
        public var waitsInEpoll: Bool

        /// A thread's reading.
        public init(count: Int, waitsInEpoll: Bool) {
            self.count = count
            self.waitsInEpoll = waitsInEpoll
        }
    }

    /// The context switches of each thread, by thread id.
    public static func contextSwitches(of pid: Int32, proc: String = "/proc") -> [String: ThreadSwitches]? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "\(proc)/\(pid)/task") else { return nil }
        var switches: [String: ThreadSwitches] = [:]
        for thread in threads {
            guard let voluntary = number("voluntary_ctxt_switches", inFile: "task/\(thread)/status", of: pid, proc: proc) else { continue }
            let involuntary = number("nonvoluntary_ctxt_switches", inFile: "task/\(thread)/status", of: pid, proc: proc) ?? 0
            let channel = ProcFile.text(atPath: "\(proc)/\(pid)/task/\(thread)/wchan") ?? ""
            switches[thread] = ThreadSwitches(count: voluntary + involuntary, waitsInEpoll: channel.contains("epoll"))
        }
        return switches
    }
}
