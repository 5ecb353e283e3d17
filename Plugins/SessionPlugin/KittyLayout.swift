import FoundationEssentials
import NeovimControl
import NeovimState
import ProcFiles
import ProcessSpawning
import RestorationKit
import SavedText
import TerminalPrograms

/// A kitty's own windows, tabs and layouts, read through its remote control
/// (`kitty @ ls`) when its user turned that on (`allow_remote_control` and
/// `listen_on` in `kitty.conf`): each OS window's tabs, each tab's layout
/// and windows, each window's directory and program. Given back whole as a
/// kitty session file (`kitty --session`).
struct KittyLayout: Hashable {
    /// One tab: its layout's name and its windows, in order.
    struct Tab: Hashable {
        var layout: String?
        var windows: [TerminalShells.Shell]
    }

    /// The OS windows, each its tabs.
    var osWindows: [[Tab]]

    /// Whether `directory` may be written into a session file: kitty splits
    /// the file into lines at every line break Python knows, U+2028 and
    /// U+2029 too, which a plain path may hold.
    static func fitsSessionFile(_ directory: String) -> Bool {
        SavedText.isPlainAbsolutePath(directory)
            && !directory.unicodeScalars.contains { [0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029].contains($0.value) }
    }

    /// kitty's layouts: a saved name that is none of them is not given back.
    static let layouts: Set<String> = ["fat", "grid", "horizontal", "splits", "stack", "tall", "vertical"]

    /// The layout of the kitty `pid`, or nil when it does not listen for
    /// remote control or does not answer within 2 seconds. Programs are
    /// kept as `policy` keeps them; a Neovim's state is read by `readEditor`.
    static func read(kittyPID pid: Int32, policy: ProgramPolicy, readEditor: (ForegroundProgram) -> NeovimSession?) -> KittyLayout? {
        // kitty tells its children where it listens.
        let address = ProcProcess.children(of: pid).lazy.compactMap {
            ProcProcess.environment(of: $0, prefix: "KITTY_LISTEN_ON=")["KITTY_LISTEN_ON"]
        }.first
        guard let address, address.hasPrefix("unix:"), let executable = ProcProcess.executable(of: pid),
              let run = try? ProgramRun.run(executable, arguments: ["kitty", "@", "--to", address, "ls"], environment: [:], timeout: .seconds(2)),
              run.ending == .exited(0), let listed = try? JSONDecoder().decode([OSWindow].self, from: Data(run.output))
        else { return nil }
        return KittyLayout(osWindows: listed.map { window in
            window.tabs.map { tab in
                Tab(layout: tab.layout, windows: tab.windows.compactMap { window in
                    guard Self.fitsSessionFile(window.cwd) else { return nil }
                    // The first of its foreground processes that is no shell.
                    let foreground = window.foreground_processes.first { process in
                        guard let name = process.cmdline.first else { return false }
                        return !ForegroundProgram.shells.contains(ForegroundProgram.baseName(name))
                    }.map { ForegroundProgram(arguments: $0.cmdline, pid: $0.pid) }
                    return TerminalShells.Shell(directory: window.cwd, foreground: foreground, policy: policy, readEditor: readEditor)
                })
            }
        })
    }

    /// `kitty @ ls` as it writes it (the fields read).
    private struct OSWindow: Decodable {
        struct Tab: Decodable {
            var layout: String?
            var windows: [Window]
        }
        struct Window: Decodable {
            struct Process: Decodable {
                var pid: Int32
                var cmdline: [String]
            }
            var cwd: String
            var foreground_processes: [Process]
        }
        var tabs: [Tab]
    }

    /// The value stored in the archive.
    var stateValue: StateValue {
        .array(osWindows.map { tabs in
            .array(tabs.map { tab in
                var fields: [String: StateValue] = ["windows": .array(tab.windows.map(\.stateValue))]
                if let layout = tab.layout { fields["layout"] = .string(layout) }
                return .dictionary(fields)
            })
        })
    }

    /// A layout as ``stateValue`` stored it, each window read as
    /// ``TerminalShells/Shell/init(stateValue:policy:problems:)`` reads it;
    /// a layout name kitty does not have is dropped.
    init?(stateValue value: StateValue, policy: ProgramPolicy, problems: inout [String]) {
        guard case .array(let windows) = value else { return nil }
        var osWindows: [[Tab]] = []
        for window in windows {
            guard case .array(let tabs) = window else { return nil }
            var read: [Tab] = []
            for tab in tabs {
                guard case .dictionary(let fields) = tab, case .array(let shells)? = fields["windows"] else { return nil }
                let layout = fields["layout"].flatMap(String.init(stateValue:)).flatMap { Self.layouts.contains($0) ? $0 : nil }
                let windows = shells.compactMap { TerminalShells.Shell(stateValue: $0, policy: policy, problems: &problems) }
                read.append(Tab(layout: layout, windows: windows.filter { Self.fitsSessionFile($0.directory) }))
            }
            osWindows.append(read.filter { !$0.windows.isEmpty })
        }
        self.init(osWindows: osWindows.filter { !$0.isEmpty })
    }

    init(osWindows: [[Tab]]) {
        self.osWindows = osWindows
    }

    /// The windows, in order.
    var windows: [TerminalShells.Shell] { osWindows.flatMap { $0.flatMap(\.windows) } }

    /// The session file that opens it all again, each window's program run
    /// by its one-use script (`scripts`, by the window's place in
    /// ``windows``). Directories are plain absolute paths, quoted for the
    /// session file's shell-like splitting; scripts are paths of plain
    /// characters; layout names are kitty's own.
    func sessionFile(scripts: [Int: ProgramScript]) -> String {
        var lines: [String] = []
        var index = 0
        for (number, tabs) in osWindows.enumerated() {
            if number > 0 { lines.append("new_os_window") }
            for tab in tabs {
                lines.append("new_tab")
                if let layout = tab.layout { lines.append("layout \(layout)") }
                for window in tab.windows {
                    var line = "launch --cwd=\(SavedText.shellQuoted(window.directory))"
                    if let script = scripts[index] { line += " " + script.terminalCommand.joined(separator: " ") }
                    lines.append(line)
                    index += 1
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
