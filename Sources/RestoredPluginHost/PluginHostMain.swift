import CRestoredHostSupport
import Logging
import RestoredHostProtocol
import RestoredSystemd

/// `restored-plugin-host`: one plugin's helper process, started by restored.
///
/// Usage (by restored only): `restored-plugin-host --parent PID PLUGIN`, with
/// the channel to restored as descriptor 3 (``HostProtocol``). The helper
/// dies with its parent (`PR_SET_PDEATHSIG`), can never gain privileges
/// (`PR_SET_NO_NEW_PRIVS`), keeps no descriptor but 0-3 (and 3 is not passed
/// on to what the plugin runs), and reports a fatal signal with the plugin
/// callback that was running before it dies of it. It logs like restored
/// (the journal, or standard error), each line tagged with the app.
@main
enum PluginHostMain {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, arguments[1] == "--parent", let parent = Int32(arguments[2]) else {
            writeError("restored-plugin-host runs plugins for restored, which starts it; it is not meant to be run by hand")
            exit(2)
        }
        switch c_restored_host_bind_to_parent(parent) {
        case 0: break
        case -2: exit(0)  // restored died before the death signal was armed
        default:
            writeError("restored-plugin-host: cannot bind to restored: \(String(cString: strerror(errno)))")
            exit(1)
        }
        c_restored_close_from(HostProtocol.channelDescriptor + 1)
        // What the plugin runs must not hold restored's channel open.
        _ = fcntl(HostProtocol.channelDescriptor, F_SETFD, FD_CLOEXEC)
        if c_restored_install_crash_reporter(HostProtocol.channelDescriptor) != 0 {
            writeError("restored-plugin-host: cannot install the crash reporter: \(String(cString: strerror(errno)))")
        }
        signal(SIGPIPE, SIG_IGN)
        let status = HostServer(channel: FrameChannel(descriptor: HostProtocol.channelDescriptor), pluginFile: arguments[3]).run()
        exit(status)
    }

    static func writeError(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
