import Glibc
public import SystemPackage
import SystemSupport

/// The mark restored leaves in the user's runtime directory while a login
/// runs, to tell a login from a restart inside one.
///
/// `$XDG_RUNTIME_DIR` lives as long as the user's login (logind removes it
/// when the last session closes, unless the user lingers, and it is a tmpfs
/// cleared at boot). restored leaves the mark when it starts and removes it
/// when it witnesses the login's end (``close()``: the user manager
/// stopping, logind's `closing`, a shutdown). A mark found at start means
/// restored started again inside a running login (after a crash, with
/// `Restart=on-failure`, or an upgrade): the apps are live, and the start is
/// a ``RestoreReason/recovery``. A desktop that ends inside a login that goes
/// on (lingering, a window manager started from a console) leaves the mark:
/// a crash between two desktops must not start a second tmux server. The
/// mark is named after the state directory, so a second restored of other
/// state (the demo, a test) is a login of its own. Without `XDG_RUNTIME_DIR`
/// there is no login to tell apart: every start is a login. (`restored-plugin-test`
/// removes the mark of its run's own state directory, as a login's end does.)
public struct SessionMarker: Sendable {
    /// The mark's file, or nil without a runtime directory.
    public let file: FilePath?

    /// The mark of `stateDirectory` in the runtime directory of `environment`.
    public init(stateDirectory: FilePath, environment: [String: String]) {
        guard let runtime = XDGBaseDirectories(environment: environment).runtimeDirectory else {
            file = nil
            return
        }
        file = FilePath(runtime).appending("restored").appending("started-" + Self.name(of: stateDirectory))
    }

    /// Whether restored ran before in this session; leaves the mark for the
    /// next start. A mark that cannot be written is a login, now and next time.
    public func markStarted() -> Bool {
        guard let file else { return false }
        let found = access(file.string, F_OK) == 0
        if !found {
            _ = mkdir(file.removingLastComponent().string, 0o700)
            let mark = try? FileDescriptor.open(file, .writeOnly, options: [.create, .noFollow, .closeOnExec], permissions: .ownerReadWrite)
            try? mark?.close()
        }
        return found
    }

    /// The login ends: the next start is a login, not a recovery.
    public func close() {
        guard let file else { return }
        _ = unlink(file.string)
    }

    /// FNV-1a of the path, in hex: a stable short name (not a secret).
    public static func name(of directory: FilePath) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in directory.string.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
