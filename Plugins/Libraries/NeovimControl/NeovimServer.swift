import FoundationEssentials
import ProcFiles
public import SystemPackage
import SystemSupport

/// Where a running Neovim takes RPC requests: the unix sockets it listens
/// on, found from `/proc` with no help from the user.
///
/// Every Neovim listens on one (`v:servername`: `/tmp/nvimXXXXXX/0` in 0.7,
/// `$XDG_RUNTIME_DIR/nvim.PID.0` later). Since Neovim 0.10 the terminal UI
/// is a process of its own and the server is its `--embed` child, so the
/// process's children are searched too.
public enum NeovimServer {
    /// Whether process `pid` runs Neovim: its executable is named `nvim`
    /// (also when started as a `vi` linked to it, and when the file was
    /// replaced by an upgrade since), or, when that cannot be read, its
    /// `argv[0]` is.
    public static func isNeovim(pid: Int32, proc: String = "/proc") -> Bool {
        guard let name = ProcProcess.executable(of: pid, proc: proc) ?? ProcProcess.commandLine(of: pid, proc: proc)?.first else { return false }
        return ProgramName.of(name) == "nvim"
    }

    /// The listening unix sockets of the Neovim processes among process
    /// `pid` and its descendants, the process's own first. Sockets of
    /// other programs below it (a language server, a nested shell's ssh
    /// master) are never returned.
    public static func sockets(ofProcess pid: Int32, proc: String = "/proc") -> [FilePath] {
        let listening = listeningSockets(proc: proc)
        guard !listening.isEmpty else { return [] }
        var found: [FilePath] = []
        var queue = [pid]
        var seen: Set<Int32> = []
        while !queue.isEmpty {
            let process = queue.removeFirst()
            guard seen.insert(process).inserted else { continue }
            queue += ProcProcess.children(of: process, proc: proc)
            guard isNeovim(pid: process, proc: proc) else { continue }
            for inode in socketInodes(of: process, proc: proc) {
                if let path = listening[inode], !found.contains(path) { found.append(path) }
            }
        }
        return found
    }

    /// The listening unix sockets with a path, by inode (`/proc/net/unix`:
    /// the `__SO_ACCEPTCON` flag, 0x10000).
    static func listeningSockets(proc: String) -> [UInt64: FilePath] {
        guard let table = ProcFile.text(atPath: "\(proc)/net/unix") else { return [:] }
        var sockets: [UInt64: FilePath] = [:]
        for line in table.split(separator: "\n").dropFirst() {
            // Num RefCount Protocol Flags Type St Inode Path
            let fields = line.split(separator: " ", maxSplits: 7, omittingEmptySubsequences: true)
            guard fields.count == 8, let flags = UInt32(fields[3], radix: 16), flags & 0x10000 != 0,
                  let inode = UInt64(fields[6]), fields[7].hasPrefix("/")
            else { continue }
            sockets[inode] = FilePath(String(fields[7]))
        }
        return sockets
    }

    /// The inodes of the sockets `pid` holds open.
    static func socketInodes(of pid: Int32, proc: String) -> [UInt64] {
        let directory = "\(proc)/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return entries.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)"),
                  target.hasPrefix("socket:["), target.hasSuffix("]")
            else { return nil }
            return UInt64(target.dropFirst(8).dropLast())
        }
    }
}
