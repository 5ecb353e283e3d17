import Foundation
import RestoredArchive
import RestoredState
import RestoredTestSupport
import SystemPackage
import Testing
import TmuxControl
import ProcFiles

/// Archives written by an attacker, and strings planted by any program
/// (a pane title set with OSC 2), replayed through the real daemon with
/// the built tmux plugin, a real tmux and a real Neovim: nothing they
/// hold runs, and the restore still does what it can (`docs/security.md`).
@Suite struct HostileArchiveTests {
    typealias Environment = DaemonIntegrationTests.Environment
    static let appID = "org.restored.Tmux"

    /// Strings for every interpreter on the way, each running
    /// `touch MARKER-N` if it ever ran: tmux formats (`#()`, `#{}`, a
    /// trailing `;`), the shell (`$()`, backticks, quotes, `;`), Neovim
    /// (`+cmd`, `term://`, `:!`), desktop entries' field codes, systemd's
    /// `$` and `${}`, and control characters a terminal or line editor
    /// acts on (`^U`, CR, newline, OSC, C1 CSI).
    static func payloads(marker: String) -> [String] {
        let printable = "+!touch \(marker)-1 #(touch \(marker)-2) #{pane_id} $(touch \(marker)-3) `touch \(marker)-4` '; touch \(marker)-5; ' \"; touch \(marker)-6; \" |!touch \(marker)-7 %f %k ${HOME} $HOME a ; run-shell 'touch \(marker)-8' ;"
        let control = "x\u{15}touch \(marker)-9\r\ntouch \(marker)-10\n\u{1b}]2;#(touch \(marker)-11)\u{7}\u{9b}2J\u{1b}[6n"
        return [printable, "term://touch \(marker)-12", ":!touch \(marker)-13", control]
    }

    /// One place in an archive that holds a string: where, and the archive
    /// with `text` there instead.
    struct Slot {
        let label: String
        /// The depth of the object that holds it.
        let depth: Int
        /// The string there now.
        let original: String
        let replacing: (String) -> Archive
    }

    /// Every string of `archive`'s objects (values, inside arrays and
    /// dictionaries too) and every identifier of their paths.
    static func slots(of archive: Archive) throws -> [Slot] {
        var slots: [Slot] = []
        for (index, object) in archive.objects.enumerated() {
            let entries = try StateContainerReader.decodeEntries(object.state)
            for (position, entry) in entries.enumerated() {
                for (label, original, replace) in strings(in: entry.value, at: "\(object.path) \(entry.key)") {
                    slots.append(Slot(label: label, depth: object.path.depth, original: original) { text in
                        var copy = archive, changed = entries
                        changed[position].value = replace(text)
                        copy.objects[index].state = StateContainerWriter.encode(changed)
                        return copy
                    })
                }
            }
            // Its own identifier, in its path and its descendants'.
            let depth = object.path.depth
            slots.append(Slot(label: "\(object.path) identifier", depth: depth, original: object.path.components[depth - 1].identifier) { text in
                var copy = archive
                for other in copy.objects.indices where copy.objects[other].path.components.starts(with: object.path.components) {
                    copy.objects[other].path.components[depth - 1].identifier = text
                }
                return copy
            })
        }
        return slots
    }

    private static func strings(in value: StoredValue, at label: String) -> [(String, String, (String) -> StoredValue)] {
        switch value {
        case .string(let original): return [(label, original, { .string($0) })]
        case .array(let items):
            return items.indices.flatMap { index in
                strings(in: items[index], at: "\(label)[\(index)]").map { inner, original, replace in
                    (inner, original, { text in var copy = items; copy[index] = replace(text); return .array(copy) })
                }
            }
        case .dictionary(let entries):
            return entries.indices.flatMap { index in
                strings(in: entries[index].value, at: "\(label).\(entries[index].key)").map { inner, original, replace in
                    (inner, original, { text in var copy = entries; copy[index].value = replace(text); return .dictionary(copy) })
                }
            }
        default: return []
        }
    }

    @Test("Every string of a tmux archive (names, directories, titles, layouts, the panes' text, the program's arguments, Neovim's directory and files, every path identifier), replaced by payloads for tmux, the shell, Neovim, field codes, systemd and the terminal, restores through the daemon and runs nothing; what is untouched still comes back")
    func hostileTmuxArchive() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("TmuxPlugin")
        let root = environment.bus.directory.path
        let tmuxDirectory = try TmuxPluginTests.tmuxDirectory(in: environment)
        let server = try TmuxPluginTests.server("default", in: tmuxDirectory)
        defer { _ = try? server.run(["kill-server"]) }
        let project = root + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        try "one\ntwo\n".write(toFile: project + "/notes.txt", atomically: true, encoding: .utf8)
        _ = try server.run(commands: [
            ["new-session", "-d", "-s", "work", "-n", "edit", "-c", project, "-x", "120", "-y", "40"],
            ["split-window", "-h", "-t", "=work:0", "-c", project],
            ["select-pane", "-t", "=work:0.1", "-T", "build"],
            ["send-keys", "-t", "=work:0.0", "nvim notes.txt", "Enter"],
        ])
        let editorPane = try #require(try TmuxSnapshot.read(from: server).sessions.first?.windows.first?.panes.first)
        _ = try await TmuxPluginTests.neovim(in: editorPane.pid)

        var variables = TmuxPluginTests.shellEnvironment(tmuxDirectory)
        variables["XDG_RUNTIME_DIR"] = root
        // With the panes' text kept, so that it is one of the strings replaced.
        let daemon = try environment.startDaemon(
            log: "restored.log", arguments: ["--autosave-interval", "0", "--option", "\(Self.appID):pane-contents=true"], environment: variables)
        defer { daemon.stop() }
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        #expect(try await admin.call("Save", [.strings([Self.appID])]) == [.uint32(1)])
        _ = try server.run(["kill-server"])
        let file = environment.state + "/\(Self.appID)/archive"
        let saved = try ArchiveCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        // A program and its Neovim are restored (nvim started, its state
        // replayed) only where their own strings are replaced: elsewhere the
        // archive goes without them, which keeps the suite light beside the others.
        var withoutPrograms = saved
        withoutPrograms.objects.removeAll { $0.path.depth > 4 }
        let slots = try Self.slots(of: withoutPrograms) + Self.slots(of: saved).filter { $0.depth > 4 }
        // Names, directories, title, layout, program, Neovim's state and the identifiers at least.
        #expect(slots.count >= 15, "\(slots.map(\.label))")
        #expect(slots.contains { $0.label.hasSuffix(" contents") }, "\(slots.map(\.label))")

        let markers = root + "/ran"
        try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: true)
        var labels: [String: String] = [:]
        for (slotIndex, slot) in slots.enumerated() {
            labels["\(slotIndex)"] = slot.label
            for (payloadIndex, payload) in Self.payloads(marker: "\(markers)/\(slotIndex)").enumerated() {
                // As it is, and where the string is a path, as an absolute path
                // (directories and files must be one to be used at all).
                let variants = slot.original.hasPrefix("/") ? [payload, project + "/" + payload] : [payload]
                for (variant, text) in variants.enumerated() {
                    var archive = slot.replacing(text)
                    archive.restoreAttempts = 0
                    try Data(ArchiveCodec.encode(archive)).write(to: URL(fileURLWithPath: file))
                    _ = try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)])
                    // What was not touched still comes back: the session, unless its
                    // name, its server's or its only window's identifier was replaced.
                    let replacedName = slot.label.hasSuffix("identifier") && saved.objects.first { "\($0.path) identifier" == slot.label }.map { $0.path.depth <= 3 } == true
                    if !replacedName {
                        #expect((try? server.run(["has-session", "-t", "=work"])) != nil, "\(slot.label) <- \(variant) \(payload.debugDescription): \(environment.log("restored.log").suffix(2000))")
                    }
                    if slot.label.hasSuffix(" title"), variant == 0, payloadIndex == 0,
                       let pane = saved.objects.first(where: { "\($0.path) title" == slot.label })?.path.components.last?.identifier {
                        // A printable title comes back exactly as it was given, on its own pane.
                        let title = try server.run(["display-message", "-p", "-t", "=work:0.\(pane)", "#{pane_title}"])
                        #expect(title == payload + "\n", "pane \(pane): \(environment.log("restored.log").suffix(2000))")
                    }
                    // The typed line and #() jobs run at once if they run at all.
                    try await Task.sleep(for: .milliseconds(150))
                    _ = try? server.run(["kill-server"])
                }
            }
        }
        try await Task.sleep(for: .seconds(1))
        let ran = try FileManager.default.contentsOfDirectory(atPath: markers)
        #expect(ran.isEmpty, "ran: \(ran.map { "\($0): \(labels[String($0.split(separator: "-")[0])] ?? "?")" })")
        // No one-use script was left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix("restored-tmux-program-") }.isEmpty)
        #expect(await daemon.terminated() == 0)
    }

    @Test("A pane title set with OSC 2 by a program in a real pane, holding #(...) and $(...), is saved and comes back exactly, and runs nothing")
    func titleFromTheTerminal() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("TmuxPlugin")
        let root = environment.bus.directory.path
        let tmuxDirectory = try TmuxPluginTests.tmuxDirectory(in: environment)
        let server = try TmuxPluginTests.server("default", in: tmuxDirectory)
        defer { _ = try? server.run(["kill-server"]) }
        let marker = root + "/ran"
        let title = "#(touch \(marker)-1)x $(touch \(marker)-2) ##{pane_id}"
        try title.write(toFile: root + "/title", atomically: true, encoding: .utf8)
        _ = try server.run(commands: [
            ["new-session", "-d", "-s", "work", "-x", "100", "-y", "30"], ["split-window", "-h", "-t", "=work:0"],
            // As `cat` of a file, a login banner or a web page in a terminal browser would.
            ["send-keys", "-t", "=work:0.1", "printf '\\033]2;%s\\033\\\\' \"$(cat '\(root)/title')\"", "Enter"],
        ])
        try await LogindInhibitorTests.eventually { (try? server.run(["display-message", "-p", "-t", "=work:0.1", "#{pane_title}"])) == title + "\n" }
        let before = TmuxPluginTests.comparable(try TmuxSnapshot.read(from: server))

        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"], environment: TmuxPluginTests.shellEnvironment(tmuxDirectory))
        defer { daemon.stop() }
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        #expect(try await admin.call("Save", [.strings([Self.appID])]) == [.uint32(1)])
        _ = try server.run(["kill-server"])
        #expect(try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)])
        #expect(try server.run(["display-message", "-p", "-t", "=work:0.1", "#{pane_title}"]) == title + "\n")
        #expect(TmuxPluginTests.comparable(try TmuxSnapshot.read(from: server)) == before)
        try await Task.sleep(for: .seconds(1))
        #expect(!FileManager.default.fileExists(atPath: marker + "-1"))
        #expect(!FileManager.default.fileExists(atPath: marker + "-2"))
        #expect(await daemon.terminated() == 0)
    }
}

extension HostileArchiveTests {
    @Test("The session plugin reopens an app with a file and directory whose names hold $HOME, $(...), backticks and field codes exactly as they are, and a terminal in its directory through its own option; an archive's options, unknown URL schemes, control characters, paths not absolute, hostile terminal directories and hostile desktop ids open nothing and run nothing")
    func hostileSessionArchive() async throws {
        // A real kitty of another test would be a running instance of this test's kitty.
        let kittyLock = try await SharedTestLock.acquire("kitty")
        defer { kittyLock.release() }
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        let tag = String(UInt32.random(in: 1 ... UInt32.max), radix: 16)
        // Relative: file names hold no `/`. Anything run would start in the
        // app's directory or HOME, both looked at in the end.
        let marker = "ran"
        let directory = root + "/dir $HOME ${HOME} $(touch \(marker)-1) %k"
        let applications = root + "/share/applications"
        for path in [root + "/bin", applications, directory] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let editor = try SessionPluginTests.program("/usr/bin/tail", as: "editor-\(tag)", in: root + "/bin")
        // Ids no other suite uses: the scanner takes a process launched from a
        // desktop file outside its index for the app of that file's name, so
        // another suite's org.example.Editor would count as one running here.
        try "[Desktop Entry]\nType=Application\nName=Editor\nExec=\(editor) -f %F\n".write(toFile: applications + "/org.example.HostileEditor.desktop", atomically: false, encoding: .utf8)
        let plain = directory + "/one.txt"
        let hostile = directory + "/$HOME ${HOME} `touch \(marker)-2` '; touch \(marker)-3; ' %f %%.txt"
        for file in [plain, hostile] { try "x\n".write(toFile: file, atomically: false, encoding: .utf8) }
        // The desktop is there (a plugin that needs one is not saved without it).
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        defer { withExtendedLifetime(display) {} }
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = display.display
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        variables["HOME"] = root
        let manager = try await UserManagerMock.start(on: environment.bus)
        defer { manager.stop() }
        let app = try ChildProcess("/bin/sh", ["-c", "cd \"$0\" && exec \"$1\" -f \"$2\" \"$3\"", directory, editor, plain, hostile], environment: variables, log: root + "/app.log")
        defer { app.stop() }
        // A terminal as far as the plugin can tell (its program is named
        // kitty): it notes the arguments of each launch, then sleeps.
        let sleeper = try SessionPluginTests.program("/bin/sleep", as: "term-\(tag)", in: root + "/bin")
        let launches = root + "/terminal-launches"
        try ExecutableFile.write("#!/bin/sh\nprintf '%s\\037' \"$@\" >> '\(launches)'\necho >> '\(launches)'\nexec '\(sleeper)' 3000\n", to: root + "/bin/kitty")
        let terminalEntry = applications + "/org.example.HostileTerm.desktop"
        try "[Desktop Entry]\nType=Application\nName=Term\nExec=\(root)/bin/kitty\n".write(toFile: terminalEntry, atomically: false, encoding: .utf8)
        let terminal = try ChildProcess("/bin/sh", ["-c", "cd \"$0\" && export GIO_LAUNCHED_DESKTOP_FILE=\"$1\" GIO_LAUNCHED_DESKTOP_FILE_PID=$$ && exec \"$2\" 3000", directory, terminalEntry, sleeper],
                                        environment: variables, log: root + "/terminal.log")
        defer { terminal.stop() }
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"], environment: variables)
        defer { daemon.stop() }
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        try await LogindInhibitorTests.eventually { [app, terminal].allSatisfy { (ProcProcess.commandLine(of: $0.pid) ?? []).first?.contains(tag) == true } }
        #expect(try await admin.call("Save", [.strings([SessionPluginTests.appID])]) == [.uint32(1)], "\(environment.log("restored.log"))")
        app.stop()
        terminal.stop()

        /// Restores once; the command lines and directories started, which are then stopped.
        func restore() async throws -> [(command: [String], directory: String?)] {
            let before = try await manager.transientUnits().count
            #expect(try await admin.call("Restore", [.strings([SessionPluginTests.appID]), .boolean(true)]) == [.uint32(1)])
            let units = Array(try await manager.transientUnits().dropFirst(before))
            var started: [(command: [String], directory: String?)] = []
            try await LogindInhibitorTests.eventually {
                started = units.compactMap { unit in manager.spawned[unit.name].map { ((ProcProcess.commandLine(of: $0) ?? []), unit.properties["WorkingDirectory"]?.stringValue) } }
                return started.count == units.count && started.allSatisfy { $0.command.first?.contains(tag) == true }
            }
            for unit in units { if let pid = manager.spawned[unit.name] { kill(pid, SIGKILL) } }
            // The next restore must find none of them running: each is gone or a zombie.
            try await LogindInhibitorTests.eventually {
                units.allSatisfy { unit in
                    manager.spawned[unit.name].map { pid in
                        let state = ProcProcess.state(of: pid)
                        return state == nil || state == "Z"
                    } ?? true
                }
            }
            return started
        }

        // As saved: every name exactly, $ and all (systemd would have expanded it).
        let exact = try await restore().filter { $0.command.first == editor }
        #expect(exact.map(\.command) == [[editor, "-f", plain, hostile]])
        #expect(exact.map(\.directory) == [directory])
        // The terminal: its window in the directory it ran in, through its own option.
        #expect(try String(contentsOfFile: launches, encoding: .utf8) == "--directory\u{1F}\(directory)\u{1F}\n")

        // The archive's files replaced: only plain absolute paths and document URLs reach the app.
        let file = environment.state + "/\(SessionPluginTests.appID)/archive"
        let saved = try ArchiveCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        let slots = try Self.slots(of: saved)
        let items = try #require(slots.first { $0.label.hasSuffix(" items[0]") })
        for (text, expected) in [
            ("-oProxyCommand=touch \(marker)-4", [editor, "-f"]), ("x-evil://touch \(marker)-5", [editor, "-f"]), ("relative $(touch \(marker)-6)", [editor, "-f"]),
            ("\(directory)/a\nb; touch \(marker)-7", [editor, "-f"]), ("\(directory)/ok $(touch \(marker)-8)", [editor, "-f", "\(directory)/ok $(touch \(marker)-8)", hostile]),
        ] {
            var archive = items.replacing(text)
            archive.restoreAttempts = 0
            try Data(ArchiveCodec.encode(archive)).write(to: URL(fileURLWithPath: file))
            let started = try await restore().filter { $0.command.first == editor }
            #expect(started.map(\.command) == [expected.count == 2 ? expected + [hostile] : expected], "\(text.debugDescription): \(environment.log("restored.log").suffix(3000))")
        }
        // The terminal's shell directories replaced: only plain absolute
        // paths reach its option, each one window.
        let terminalObject = try #require(saved.objects.firstIndex { $0.path.components.map(\.identifier) == ["org.example.HostileTerm.desktop", "0"] })
        for (index, payload) in Self.payloads(marker: "\(marker)-term").enumerated() {
            let directories = [directory + "/" + payload, payload, directory]
            var archive = saved
            var entries = try StateContainerReader.decodeEntries(archive.objects[terminalObject].state)
            entries.removeAll { $0.key == "shells" || $0.key == "shell-directories" }
            entries.append(StoredEntry(key: "shells", value: .array(directories.map { .dictionary([StoredEntry(key: "directory", value: .string($0))]) })))
            archive.objects[terminalObject].state = StateContainerWriter.encode(entries)
            archive.restoreAttempts = 0
            try Data(ArchiveCodec.encode(archive)).write(to: URL(fileURLWithPath: file))
            try? FileManager.default.removeItem(atPath: launches)
            _ = try await restore()
            // The printable payload and Neovim's `:!` as absolute paths are plain directories;
            // `term://` and control characters are not.
            let accepted = [0, 2].contains(index) ? [directory + "/" + payload, directory] : [directory]
            let launched = ((try? String(contentsOfFile: launches, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            #expect(Set(launched).isSubset(of: accepted.map { "--directory\u{1F}\($0)\u{1F}" }), "\(payload.debugDescription): \(launched)")
        }

        // Every other string, and every identifier, with every payload: nothing runs.
        for slot in slots {
            for (index, payload) in Self.payloads(marker: "\(marker)-slot").enumerated() {
                for text in slot.original.hasPrefix("/") ? [payload, directory + "/" + payload] : [payload] {
                    var archive = slot.replacing(text)
                    archive.restoreAttempts = 0
                    try Data(ArchiveCodec.encode(archive)).write(to: URL(fileURLWithPath: file))
                    _ = try await restore()
                    _ = index
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let ran = try (FileManager.default.contentsOfDirectory(atPath: root) + FileManager.default.contentsOfDirectory(atPath: directory)).filter { $0.hasPrefix("ran") }
        #expect(ran.isEmpty, "\(ran)")
        #expect(await daemon.terminated() == 0)
    }
}
