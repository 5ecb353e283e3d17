import FoundationEssentials
import Glibc

/// The processes of a cgroup and of every cgroup under it, read from the
/// cgroup file system: how a test or `restored-plugin-test` finds what a
/// unit of a user manager runs (the processes a restore started).
public enum ControlGroup {
    /// The hierarchies a cgroup path may live under: the unified one, or
    /// systemd's own in a hybrid layout.
    static let roots = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/systemd"]

    /// The processes of `group` (a path as systemd names it, starting with
    /// `/`) and of every cgroup under it, in the first hierarchy that has
    /// it; empty when none does.
    public static func processes(of group: String) -> [Int32] {
        guard let root = roots.first(where: { access($0 + group + "/cgroup.procs", R_OK) == 0 }) else { return [] }
        return processes(under: root + group)
    }

    /// The processes of the cgroup directory `path` and of every one under it.
    public static func processes(under path: String) -> [Int32] {
        let own = ((try? String(contentsOfFile: path + "/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().flatMap { name -> [Int32] in
            access(path + "/" + name + "/cgroup.procs", R_OK) == 0 ? processes(under: path + "/" + name) : []
        }
        return own + children
    }
}
