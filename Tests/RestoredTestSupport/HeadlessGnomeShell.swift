import Foundation
import RestoredDBus

/// A real GNOME Shell, headless (`--headless --virtual-monitor 1280x800`,
/// Mutter's virtual monitor `Meta-0`), on a test's private bus (its session
/// bus, and the system bus where python3-dbusmock plays logind), with a
/// home, runtime directory and settings of its own under `root`; stopped by
/// pid.
///
/// Its settings use GIO's keyfile backend: the enabled extensions are
/// written before it starts, as `gsettings set org.gnome.shell
/// enabled-extensions` would (dconf would need its service activated on
/// the private bus, with the test's home in the bus's environment).
/// Extensions are found in each of `dataDirectories`' `gnome-shell/extensions`,
/// as a package's are in `/usr/share`.
public final class HeadlessGnomeShell {
    /// The shell's process.
    public let process: ChildProcess
    /// Its `XDG_RUNTIME_DIR` (its Wayland display is there).
    public let runtimeDirectory: String
    /// Its Wayland display's name (`WAYLAND_DISPLAY`).
    public let waylandDisplay = "restored-test-wayland"
    /// The test extension that reads and moves windows for the test
    /// (`org.restored1.test.Windows` at `/org/restored1/test/Windows` on the shell's connection).
    public static let testExtension = "test-windows@restored.test"
    /// The shell's major version (43, 48, 50).
    public let majorVersion: Int
    private let logFile: String

    /// Starts GNOME Shell on `bus` with `extensions` enabled (the test
    /// extension is installed in `root/test-share` and enabled too), and
    /// waits (up to 60 s) until it owns `org.gnome.Shell` and the test
    /// extension answers.
    ///
    /// With `systemRoot` (a root of another Debian release, with `/proc`,
    /// `/dev` and this machine's `/tmp` mounted in it; as root), the
    /// shell and its Extensions service are that root's, run through
    /// `chroot`; everything else (`root`, the bus) must then lie in `/tmp`.
    public init(root: String, bus: PrivateBus, dataDirectories: [String], extensions: [String], systemRoot: String? = nil) async throws {
        let home = root + "/gnome-home"
        let inRoot = { (program: String) in systemRoot.map { (program: "/usr/sbin/chroot", prefix: [$0, program]) } ?? (program: program, prefix: []) }
        runtimeDirectory = root + "/gnome-runtime"
        logFile = root + "/gnome-shell.log"
        for directory in [home, runtimeDirectory, home + "/.config/glib-2.0/settings"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let testShare = root + "/test-share"
        let testExtensionDirectory = testShare + "/gnome-shell/extensions/" + Self.testExtension
        try FileManager.default.createDirectory(atPath: testExtensionDirectory, withIntermediateDirectories: true)
        let gnomeShell = inRoot("/usr/bin/gnome-shell")
        let version = try await CompletedCommand.run(
            gnomeShell.program, gnomeShell.prefix + ["--version"], environment: ProcessInfo.processInfo.environment, in: URL(fileURLWithPath: root)
        )
        guard version.status == 0, let major = Int(version.output.split(separator: " ").last?.split(separator: ".").first ?? "") else {
            throw HeadlessGnomeShellError("gnome-shell --version: \(version.output)\(version.error)")
        }
        majorVersion = major
        try Self.testExtensionMetadata(major: major).write(toFile: testExtensionDirectory + "/metadata.json", atomically: true, encoding: .utf8)
        try Self.testExtensionSource(major: major).write(toFile: testExtensionDirectory + "/extension.js", atomically: true, encoding: .utf8)
        let enabled = (extensions + [Self.testExtension]).map { "'\($0)'" }.joined(separator: ", ")
        try "[org/gnome/shell]\nenabled-extensions=[\(enabled)]\ndisable-user-extensions=false\n"
            .write(toFile: home + "/.config/glib-2.0/settings/keyfile", atomically: true, encoding: .utf8)
        var variables = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK", "XDG_CONFIG_HOME", "XDG_DATA_HOME"] { variables.removeValue(forKey: name) }
        variables["HOME"] = home
        variables["XDG_RUNTIME_DIR"] = runtimeDirectory
        variables["XDG_DATA_DIRS"] = (dataDirectories + [testShare, "/usr/share"]).joined(separator: ":")
        variables["GSETTINGS_BACKEND"] = "keyfile"
        variables["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        variables["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        variables["XDG_SESSION_TYPE"] = "wayland"
        variables["XDG_CURRENT_DESKTOP"] = "GNOME"
        // gnome-extensions talks to the shell through its Extensions
        // service, activated on the session bus with the display in the
        // bus's activation environment, as on a desktop's bus (it exits
        // with the bus).
        let gjs = inRoot("/usr/bin/gjs")
        try "[D-BUS Service]\nName=org.gnome.Shell.Extensions\nExec=\(([gjs.program] + gjs.prefix).joined(separator: " ")) /usr/share/gnome-shell/org.gnome.Shell.Extensions\n"
            .write(to: bus.servicesDirectory.appendingPathComponent("org.gnome.Shell.Extensions.service"), atomically: true, encoding: .utf8)
        let activation = try await CompletedCommand.run(
            "/usr/bin/dbus-update-activation-environment", ["WAYLAND_DISPLAY=\(waylandDisplay)", "XDG_RUNTIME_DIR=\(runtimeDirectory)", "HOME=\(home)"],
            environment: variables, in: URL(fileURLWithPath: root)
        )
        guard activation.status == 0 else { throw HeadlessGnomeShellError("dbus-update-activation-environment: \(activation.output)\(activation.error)") }
        process = try ChildProcess(
            gnomeShell.program, gnomeShell.prefix + ["--headless", "--virtual-monitor", "1280x800", "--wayland-display", waylandDisplay],
            environment: variables, log: logFile
        )
        let connection = try await bus.connect()
        defer { connection.close() }
        let deadline = ContinuousClock.now + .seconds(60)
        while (try? await connection.call(destination: "org.gnome.Shell", path: "/org/restored1/test/Windows", interface: "org.restored1.test.Windows", member: "List", timeout: .seconds(5))) == nil {
            guard ContinuousClock.now < deadline else {
                process.stop()
                throw HeadlessGnomeShellError("GNOME Shell and its test extension did not come up within 60 s: \((try? String(contentsOfFile: root + "/gnome-shell.log", encoding: .utf8)) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// What a client of this shell runs with: its runtime directory and display.
    public var clientEnvironment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay, "XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_TYPE": "wayland"]
    }

    /// A window as the test extension reads it.
    public struct Window: Equatable, Sendable, CustomStringConvertible {
        /// Its id (Mutter's).
        public var id: UInt64
        /// Its process.
        public var pid: Int32
        /// Its workspace's index (-1: on all).
        public var workspace: Int32
        /// Its frame: left, top, width, height.
        public var frame: [Int32]
        /// Whether it is maximized both ways.
        public var maximized: Bool
        /// What it is, for failure messages.
        public var description: String { "pid \(pid) on workspace \(workspace) at \(frame)\(maximized ? " maximized" : "")" }
    }

    /// The shell's normal windows, read by the test extension.
    public func windows(on bus: PrivateBus) async throws -> [Window] {
        let connection = try await bus.connect()
        defer { connection.close() }
        let reply = try await connection.call(destination: "org.gnome.Shell", path: "/org/restored1/test/Windows", interface: "org.restored1.test.Windows", member: "List")
        return (reply.first?.arrayValue ?? []).compactMap { value in
            guard let fields = value.structureValue, fields.count == 8,
                  let pid = fields[0].int64Value, let workspace = fields[1].int64Value, let maximized = fields[6].boolValue, let id = fields[7].uint64Value else { return nil }
            let frame = fields[2 ... 5].compactMap { $0.int64Value.flatMap { Int32(exactly: $0) } }
            return Window(id: id, pid: Int32(pid), workspace: Int32(workspace), frame: frame, maximized: maximized)
        }
    }

    /// Each normal window's id, process, GtkApplication object path ("" for
    /// none) and title, read by the test extension.
    public func titles(on bus: PrivateBus) async throws -> [(id: UInt64, pid: Int32, path: String, title: String)] {
        let connection = try await bus.connect()
        defer { connection.close() }
        let reply = try await connection.call(destination: "org.gnome.Shell", path: "/org/restored1/test/Windows", interface: "org.restored1.test.Windows", member: "Titles")
        return (reply.first?.arrayValue ?? []).compactMap { value in
            guard let fields = value.structureValue, fields.count == 4, let id = fields[0].uint64Value, let pid = fields[1].int64Value.flatMap({ Int32(exactly: $0) }),
                  let path = fields[2].stringValue, let title = fields[3].stringValue else { return nil }
            return (id, pid, path, title)
        }
    }

    /// Has the test extension move the windows of `pid` to workspace
    /// `workspace` at `frame`, maximized or not, as a user would.
    public func place(pid: Int32, workspace: Int32, frame: [Int32], maximized: Bool = false, on bus: PrivateBus) async throws {
        try await place(.int32(pid), member: "Place", workspace: workspace, frame: frame, maximized: maximized, on: bus)
    }

    /// The same for the one window `id` (of a process with several windows).
    public func place(window id: UInt64, workspace: Int32, frame: [Int32], maximized: Bool = false, on bus: PrivateBus) async throws {
        try await place(.uint64(id), member: "PlaceWindow", workspace: workspace, frame: frame, maximized: maximized, on: bus)
    }

    private func place(_ which: DBusValue, member: String, workspace: Int32, frame: [Int32], maximized: Bool, on bus: PrivateBus) async throws {
        let connection = try await bus.connect()
        defer { connection.close() }
        _ = try await connection.call(
            destination: "org.gnome.Shell", path: "/org/restored1/test/Windows", interface: "org.restored1.test.Windows", member: member,
            arguments: [which, .int32(workspace)] + frame.map(DBusValue.int32) + [.boolean(maximized)]
        )
    }

    /// The lines of the shell's log that hold `text`, for failure messages.
    public func log(containing text: String) -> String {
        ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains(text) }.joined(separator: "\n")
    }

    /// Stops the shell.
    public func stop() { process.stop() }

    /// The test extension's metadata for a shell of `major` version:
    /// legacy imports up to 44, an ES module from 45 on.
    static func testExtensionMetadata(major: Int) -> String {
        let versions = major >= 45 ? (45 ... 50).map { "\"\($0)\"" } : ["\"43\"", "\"44\""]
        return """
            {"uuid": "\(testExtension)", "name": "restored's test windows", "description": "Reads and moves windows for restored's tests.", "shell-version": [\(versions.joined(separator: ", "))]}
            """
    }

    /// The test extension's source for a shell of `major` version: the
    /// same service in GNOME 43's legacy form or as a 45+ ES module.
    static func testExtensionSource(major: Int) -> String {
        if major >= 45 {
            return """
                import Gio from 'gi://Gio';
                import Meta from 'gi://Meta';
                import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
                \(testExtensionService)
                export default class TestWindows extends Extension {
                    enable() {
                        exported = Gio.DBusExportedObject.wrapJSObject(xml, service);
                        exported.export(Gio.DBus.session, '/org/restored1/test/Windows');
                    }
                    disable() {
                        exported.unexport();
                        exported = null;
                    }
                }
                """
        }
        return """
            'use strict';
            const { Gio, Meta } = imports.gi;
            \(testExtensionService)
            function init() {}
            function enable() {
                exported = Gio.DBusExportedObject.wrapJSObject(xml, service);
                exported.export(Gio.DBus.session, '/org/restored1/test/Windows');
            }
            function disable() {
                exported.unexport();
                exported = null;
            }
            """
    }

    /// The test extension's service, in either form: what a user does
    /// with the mouse, and what a test reads of the windows. Mutter 49
    /// removed `get_maximized()` and the flags of `maximize()`.
    static let testExtensionService = """
        const xml = `<node><interface name="org.restored1.test.Windows">
          <method name="List"><arg type="a(iiiiiibt)" direction="out"/></method>
          <method name="Titles"><arg type="a(tiss)" direction="out"/></method>
          <method name="Place"><arg type="i" direction="in"/><arg type="i" direction="in"/><arg type="i" direction="in"/>
            <arg type="i" direction="in"/><arg type="i" direction="in"/><arg type="i" direction="in"/><arg type="b" direction="in"/></method>
          <method name="PlaceWindow"><arg type="t" direction="in"/><arg type="i" direction="in"/><arg type="i" direction="in"/>
            <arg type="i" direction="in"/><arg type="i" direction="in"/><arg type="i" direction="in"/><arg type="b" direction="in"/></method>
        </interface></node>`;
        let exported = null;
        const flagged = w => typeof w.get_maximized === 'function';
        const isMaximized = w => flagged(w) ? w.get_maximized() === Meta.MaximizeFlags.BOTH : w.is_maximized();
        function normal() {
            return global.get_window_actors().map(a => a.meta_window).filter(w => w.get_window_type() === Meta.WindowType.NORMAL);
        }
        const service = {
            List() {
                return normal().map(w => {
                    const r = w.get_frame_rect();
                    const ws = w.get_workspace();
                    return [w.get_pid(), ws ? ws.index() : -1, r.x, r.y, r.width, r.height, isMaximized(w), w.get_id()];
                });
            },
            Titles() {
                return normal().map(w => [w.get_id(), w.get_pid(), w.get_gtk_window_object_path() || '', w.get_title() || '']);
            },
            Place(pid, workspace, x, y, width, height, maximized) {
                place(normal().filter(w => w.get_pid() === pid), workspace, x, y, width, height, maximized);
            },
            PlaceWindow(id, workspace, x, y, width, height, maximized) {
                place(normal().filter(w => w.get_id() === id), workspace, x, y, width, height, maximized);
            },
        };
        function place(windows, workspace, x, y, width, height, maximized) {
            const manager = global.display.get_workspace_manager();
            for (const w of windows) {
                while (manager.get_n_workspaces() <= workspace)
                    manager.append_new_workspace(false, global.get_current_time());
                w.change_workspace_by_index(workspace, false);
                if (isMaximized(w)) {
                    if (flagged(w))
                        w.unmaximize(Meta.MaximizeFlags.BOTH);
                    else
                        w.unmaximize();
                }
                w.move_resize_frame(true, x, y, width, height);
                if (maximized) {
                    if (flagged(w))
                        w.maximize(Meta.MaximizeFlags.BOTH);
                    else
                        w.maximize();
                }
            }
        }
        """
}

/// Why the headless GNOME Shell of a test could not be used.
public struct HeadlessGnomeShellError: Error, CustomStringConvertible {
    /// What happened.
    public var description: String
    init(_ description: String) { self.description = description }
}
