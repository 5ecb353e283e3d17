@testable import AppDiscovery
import Testing

/// The unit of a process from its `/proc/PID/cgroup`, on plain strings:
/// the layouts systemd makes (unified, hybrid, legacy) and what is no unit.
@Suite struct CgroupPathTests {
    @Test("The unified hierarchy's path wins; systemd's own when the unified one is the root; a slice or garbage is no unit")
    func units() {
        let unified = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal@abc.service\n"
        #expect(ProcessRecord.unit(cgroup: unified) == "app-org.gnome.Terminal@abc.service")
        #expect(ProcessRecord.path(cgroup: unified) == "/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal@abc.service")

        // Hybrid: the unified hierarchy is empty ("/"), systemd's own has the unit.
        let hybrid = "12:cpu,cpuacct:/\n1:name=systemd:/user.slice/user-1000.slice/session-2.scope\n0::/\n"
        #expect(ProcessRecord.unit(cgroup: hybrid) == "session-2.scope")

        // A slice is no unit; the root is no path.
        #expect(ProcessRecord.unit(cgroup: "0::/user.slice\n") == nil)
        #expect(ProcessRecord.path(cgroup: "0::/\n") == nil)
        #expect(ProcessRecord.unit(cgroup: "") == nil)
        #expect(ProcessRecord.unit(cgroup: "nonsense\n::\n0:/x.service\n") == nil)
        // A colon inside the path stays in it.
        #expect(ProcessRecord.path(cgroup: "0::/a:b/c.service\n") == "/a:b/c.service")
    }
}
