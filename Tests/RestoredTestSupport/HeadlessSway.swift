import Foundation

/// A real sway, headless (`WLR_BACKENDS=headless`, pixman, no input
/// devices), run as user `nobody` (sway refuses root) in a runtime
/// directory and home of its own under `root`; stopped by pid.
public final class HeadlessSway {
    /// sway's process.
    public let process: ChildProcess
    /// Its `XDG_RUNTIME_DIR` (its Wayland display and IPC socket are there).
    public let runtimeDirectory: String
    /// Its IPC socket (`SWAYSOCK`).
    public let socket: String
    /// Its Wayland display's name (`WAYLAND_DISPLAY`).
    public let waylandDisplay = "wayland-1"
    private let root: String

    /// Starts sway with `configuration` and waits (up to 30 s) until its
    /// display and IPC socket are there. `root` is made world-searchable.
    public init(root: String, configuration: String = "\n") async throws {
        self.root = root
        let runtimeDirectory = root + "/sway-runtime"
        self.runtimeDirectory = runtimeDirectory
        let home = root + "/sway-home"
        for directory in [runtimeDirectory, home] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            guard chown(directory, 65534, 65534) == 0 else { throw HeadlessSwayError("cannot give \(directory) to nobody") }
        }
        chmod(root, 0o755)
        try configuration.write(toFile: home + "/config", atomically: true, encoding: .utf8)
        var variables = ProcessInfo.processInfo.environment
        variables["XDG_RUNTIME_DIR"] = runtimeDirectory
        variables["HOME"] = home
        variables["WLR_BACKENDS"] = "headless"
        variables["WLR_RENDERER"] = "pixman"
        variables["WLR_LIBINPUT_NO_DEVICES"] = "1"
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK", "DBUS_SESSION_BUS_ADDRESS"] { variables.removeValue(forKey: name) }
        process = try ChildProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/sway", "-c", home + "/config"],
            environment: variables, log: root + "/sway.log"
        )
        var found = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            found = ((try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory)) ?? []).first { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }.map { runtimeDirectory + "/" + $0 } ?? ""
            if !found.isEmpty && FileManager.default.fileExists(atPath: runtimeDirectory + "/wayland-1") { break }
            guard ContinuousClock.now < deadline else {
                process.stop()
                throw HeadlessSwayError("sway did not come up within 30 s: \((try? String(contentsOfFile: root + "/sway.log", encoding: .utf8)) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        socket = found
    }

    /// What a client of this sway runs with: its runtime directory, display and socket.
    public var clientEnvironment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay, "SWAYSOCK": socket]
    }

    /// Runs `swaymsg` with `arguments` and returns what it printed.
    @discardableResult
    public func message(_ arguments: [String]) async throws -> String {
        let run = try await CompletedCommand.run("/usr/bin/swaymsg", ["-s", socket] + arguments, environment: clientEnvironment, in: URL(fileURLWithPath: root))
        guard run.status == 0 else { throw HeadlessSwayError("swaymsg \(arguments.joined(separator: " ")): \(run.output) \(run.error)") }
        return run.output
    }

    /// Stops sway.
    public func stop() { process.stop() }
}

/// Why the headless sway of a test could not be used.
public struct HeadlessSwayError: Error, CustomStringConvertible {
    /// What happened.
    public var description: String
    init(_ description: String) { self.description = description }
}
