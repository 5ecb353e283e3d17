import DesktopEntries
import UnitLaunching
import Foundation
import Testing

/// Desktop entries as the Desktop Entry Specification 1.5 writes them.
@Suite struct DesktopEntryTests {
    @Test("The [Desktop Entry] group's keys: unlocalized, unescaped, other groups and comments skipped")
    func keys() throws {
        let text = """
        # A comment
        [Desktop Entry]
        Type=Application
        Name = Text Editor
        Name[de]=Texteditor
        Exec=gedit %U
        TryExec=gedit
        Path=/srv/my\\sfiles
        Icon=org.gnome.gedit
        NoDisplay=false
        DBusActivatable=true
        StartupWMClass=Gedit

        [Desktop Action new-window]
        Name=New Window
        Exec=gedit --new-window
        """
        let entry = try DesktopEntry(parsing: text, id: "org.gnome.gedit.desktop", path: "/usr/share/applications/org.gnome.gedit.desktop")
        #expect(entry.type == "Application" && entry.isLaunchable)
        #expect(entry.name == "Text Editor")
        #expect(entry.exec?.program == "gedit")
        #expect(entry.tryExec == "gedit")
        #expect(entry.workingDirectory == "/srv/my files")
        #expect(entry.dbusActivatable && !entry.noDisplay && !entry.hidden && !entry.terminal)
        #expect(entry.startupWMClass == "Gedit")
    }

    @Test("CRLF lines, blanks after a group header, categories; a Hidden entry of the user's hides the system's, and so does a broken one")
    func lenientAndHiding() throws {
        let entry = try DesktopEntry(parsing: "[Desktop Entry] \r\nType=Application\r\nName=W\r\nExec=w\r\nCategories=Network;WebBrowser;\r\n", id: "w.desktop", path: "w")
        #expect(entry.exec?.program == "w" && entry.categories == ["Network", "WebBrowser"])
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hiding-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for directory in [root + "/user", root + "/system"] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        try "[Desktop Entry]\nHidden=true\n".write(toFile: root + "/user/a.desktop", atomically: false, encoding: .utf8)
        try "[Desktop Entry]\nType=Application\nExec=\"broken\n".write(toFile: root + "/user/b.desktop", atomically: false, encoding: .utf8)
        for id in ["a", "b"] { try "[Desktop Entry]\nType=Application\nName=\(id)\nExec=\(id)\n".write(toFile: root + "/system/\(id).desktop", atomically: false, encoding: .utf8) }
        let index = DesktopEntryIndex(directories: [root + "/user", root + "/system"])
        #expect(index["a.desktop"]?.isLaunchable == false)
        #expect(index["b.desktop"] == nil)
    }

    @Test("What is no entry: no group, no Type, a line that is no key, an application with nothing to run")
    func broken() {
        #expect(throws: DesktopEntryError.noMainGroup(file: "a")) { try DesktopEntry(parsing: "Type=Application\n", id: "a.desktop", path: "a") }
        #expect(throws: DesktopEntryError.noType(file: "a")) { try DesktopEntry(parsing: "[Desktop Entry]\nName=x\n", id: "a.desktop", path: "a") }
        #expect(throws: DesktopEntryError.malformedLine(file: "a", line: 3, "a line that is neither a group, a key nor a comment")) {
            try DesktopEntry(parsing: "[Desktop Entry]\nType=Application\nnonsense\n", id: "a.desktop", path: "a")
        }
        #expect(throws: DesktopEntryError.noExec(file: "a")) { try DesktopEntry(parsing: "[Desktop Entry]\nType=Application\nName=x\n", id: "a.desktop", path: "a") }
        #expect(throws: DesktopEntryError.invalidExec(file: "a", .execSyntax("a quote is not closed"))) {
            try DesktopEntry(parsing: "[Desktop Entry]\nType=Application\nExec=a \"b\n", id: "a.desktop", path: "a")
        }
    }

    @Test("Exec: quoted arguments unquoted, field codes apart from text, reserved characters outside quotes refused")
    func execParsing() throws {
        // In the file: "\\" is one backslash (string escape), then the quoting rule applies.
        let entry = try DesktopEntry(parsing: #"""
        [Desktop Entry]
        Type=Application
        Name=My App
        Icon=my-app
        Exec="/opt/My App/bin/app" --title "say \\"hi\\" for \\$5 \\\\o/" --file=%f 100%% %i %c %k %d %U
        """#, id: "my-app.desktop", path: "/usr/share/applications/my-app.desktop")
        let exec = try #require(entry.exec)
        #expect(exec.program == "/opt/My App/bin/app")
        #expect(exec.takesFiles && exec.takesURLs && exec.takesSeveral)
        #expect(exec.expanded(files: ["/tmp/a b", "/tmp/$(touch x);`y`"], entry: entry) == [
            "/opt/My App/bin/app", "--title", #"say "hi" for $5 \o/"#, "--file=/tmp/a b", "100%",
            "--icon", "my-app", "My App", "/usr/share/applications/my-app.desktop", "/tmp/a b", "/tmp/$(touch x);`y`",
        ])
        // With no file and no entry, standalone codes give nothing.
        #expect(exec.expanded(files: []) == ["/opt/My App/bin/app", "--title", #"say "hi" for $5 \o/"#, "--file=", "100%"])
        for bad in ["app %z", "app ;", "app $HOME", "app --x=%F", "\"unclosed", "app \"\\n\"", "%f", "app %"] {
            #expect(throws: DesktopEntryError.self, "\(bad)") { try ExecCommand(parsing: bad) }
        }
    }

    @Test("Every file, however hostile its name, is one argument, never read by a shell")
    func hostileFiles() throws {
        let exec = try ExecCommand(parsing: "xdg-open %f")
        for name in ["a b.txt", "$(rm -rf ~)", "x; reboot", "`id`", "\"quoted\"", "new\nline", "-rf"] {
            #expect(exec.expanded(files: [name]) == ["xdg-open", name])
        }
    }

    @Test("The files a running program was opened with, where its Exec takes them")
    func openedItems() throws {
        let several = try ExecCommand(parsing: "gedit --new-window %U")
        #expect(several.openedItems(in: ["/usr/bin/gedit", "--new-window", "/home/u/a.txt", "/home/u/b c.txt"]) == ["/home/u/a.txt", "/home/u/b c.txt"])
        // Which of them are files, and how many to keep, is the scanner's.
        let single = try ExecCommand(parsing: "evince %f")
        #expect(single.openedItems(in: ["evince", "/tmp/one.pdf", "/tmp/two.pdf"]) == ["/tmp/one.pdf", "/tmp/two.pdf"])
        // A code inside a longer argument cannot be told from its text.
        #expect(try ExecCommand(parsing: "app --file=%f").openedItems(in: ["app", "--file=/tmp/x"]).isEmpty)
        let none = try ExecCommand(parsing: "xterm")
        #expect(none.openedItems(in: ["xterm", "-e", "top"]).isEmpty)
    }

    @Test("The index: the user's entries over the system's, ids from subdirectories, broken files listed")
    func index() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("entries-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let user = root + "/home/applications", system = root + "/share/applications"
        for directory in [user, system + "/kde"] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        try "[Desktop Entry]\nType=Application\nName=Mine\nExec=mine\n".write(toFile: user + "/app.desktop", atomically: false, encoding: .utf8)
        try "[Desktop Entry]\nType=Application\nName=System\nExec=system\n".write(toFile: system + "/app.desktop", atomically: false, encoding: .utf8)
        try "[Desktop Entry]\nType=Application\nName=Konsole\nExec=konsole\n".write(toFile: system + "/kde/konsole.desktop", atomically: false, encoding: .utf8)
        try "[Desktop Entry]\nType=Application\nExec=\"broken\n".write(toFile: system + "/broken.desktop", atomically: false, encoding: .utf8)
        let index = DesktopEntryIndex(directories: [user, system])
        #expect(index["app.desktop"]?.name == "Mine")
        #expect(index["kde-konsole.desktop"]?.exec?.program == "konsole")
        #expect(index["broken.desktop"] == nil)
        #expect(index.problems.count == 1 && index.problems[0].contains("broken.desktop"))
        // Current until an entry is added (here in a subdirectory).
        #expect(index.isCurrent)
        Thread.sleep(forTimeInterval: 0.02)
        try "[Desktop Entry]\nType=Application\nName=New\nExec=new\n".write(toFile: system + "/kde/new.desktop", atomically: false, encoding: .utf8)
        #expect(!index.isCurrent)
        #expect(DesktopEntryIndex(directories: [user, system]).isCurrent)
        #expect(DesktopEntryIndex.directories(environment: ["HOME": "/home/u"]) == ["/home/u/.local/share/applications", "/usr/local/share/applications", "/usr/share/applications"])
        #expect(DesktopEntryIndex.directories(environment: ["HOME": "/h", "XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/x:relative:/y"]) == ["/d/applications", "/x/applications", "/y/applications"])
    }

    @Test("A subdirectory that cannot be read is skipped alone: the rest of its directory is read")
    func unreadableSubdirectory() throws {
        let system = FileManager.default.temporaryDirectory.appendingPathComponent("entries-\(UUID().uuidString)").path
        let locked = system + "/locked"
        for directory in [system + "/kde", locked] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        defer {
            chmod(locked, 0o755)
            try? FileManager.default.removeItem(atPath: system)
        }
        for (file, name) in [("/app.desktop", "App"), ("/kde/konsole.desktop", "Konsole"), ("/locked/hidden.desktop", "Hidden")] {
            try "[Desktop Entry]\nType=Application\nName=\(name)\nExec=x\n".write(toFile: system + file, atomically: false, encoding: .utf8)
        }
        #expect(chmod(locked, 0) == 0)
        // Read as another user: root reads a directory of mode 0 (this
        // thread's filesystem user drops root's access to every file; the
        // other threads keep theirs).
        let previous = setfsuid(65534)
        defer { _ = setfsuid(UInt32(bitPattern: previous)) }
        let index = DesktopEntryIndex(directories: [system])
        #expect(index["app.desktop"]?.name == "App")
        #expect(index["kde-konsole.desktop"]?.name == "Konsole")
        #expect(index["locked-hidden.desktop"] == nil)
    }
}

/// Sets this thread's filesystem user (setfsuid(2)); returns the one before.
@_silgen_name("setfsuid") private func setfsuid(_ uid: UInt32) -> Int32

/// Unit names of the scheme, read back.
@Suite struct UnitNameTests {
    @Test("Launcher and application id from scopes and services, escaped dashes undone; other units are none")
    func parsing() {
        #expect(UnitName.application(ofUnit: "app-gnome-org.gnome.Terminal-4242.scope")! == ("gnome", "org.gnome.Terminal"))
        #expect(UnitName.application(ofUnit: "app-org.kde.konsole@3f2a.service")! == (nil, "org.kde.konsole"))
        #expect(UnitName.application(ofUnit: "app-restored-my\\x2dapp@1.service")! == ("restored", "my-app"))
        #expect(UnitName.application(ofUnit: UnitName.service(launcher: "restored", applicationID: "org.example.A-b"))! == ("restored", "org.example.A-b"))
        #expect(UnitName.application(ofUnit: "app-org.example.Plain.service")! == (nil, "org.example.Plain"))
        #expect(UnitName.application(ofUnit: "session-3.scope") == nil)
        #expect(UnitName.application(ofUnit: "dbus.service") == nil)
        #expect(UnitName.application(ofUnit: "app-.scope") == nil)
    }
}
