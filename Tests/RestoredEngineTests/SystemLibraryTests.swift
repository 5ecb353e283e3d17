import CDBus
import CSystemd
import Testing

/// The system-library targets find libdbus-1 and libsystemd through pkg-config.
@Suite struct SystemLibraryTests {
    @Test("libdbus-1 links and reports its version")
    func dbus() {
        var major: Int32 = 0
        var minor: Int32 = 0
        var micro: Int32 = 0
        dbus_get_version(&major, &minor, &micro)
        #expect(major == 1)
        #expect(minor >= 12)
    }

    @Test("libsystemd links: sd_notify without NOTIFY_SOCKET is a no-op")
    func systemd() {
        // With no NOTIFY_SOCKET in the test's environment sd_notify returns 0; the
        // daemon's tests use a socket of their own.
        #expect(sd_notify(0, "STATUS=test") >= 0)
    }
}
