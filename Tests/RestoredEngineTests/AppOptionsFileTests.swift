import Foundation
import RestoredArchive
import RestoredEngine
import SystemPackage
import Testing

/// Plugins' options from INI files in the XDG configuration directories.
@Suite struct AppOptionsFileTests {
    static let notes = try! AppID("org.example.Notes")
    static let tmux = try! AppID("org.restored.Tmux")

    @Test("Sections per app id, comments, blanks, = and # inside values, the last of a repeated key")
    func parsing() {
        let text = """
            # restored's plugin options
            ; also a comment

            [org.example.Notes]
            live-dir = /home/me/notes = mine # not a comment
            \tempty=
            [ org.restored.Tmux ]
            pane-contents=true
            pane-contents = false
            """
        let file = AppOptionsFile(parsing: text, file: FilePath("/c/restored.conf"))
        #expect(file.problems.isEmpty)
        #expect(file.options[Self.notes] == ["live-dir": "/home/me/notes = mine # not a comment", "empty": ""])
        #expect(file.options[Self.tmux] == ["pane-contents": "false"])
    }

    @Test("Each unreadable line is one problem naming the file and line; the other lines still count")
    func problems() {
        let text = """
            orphan = 1
            [org.example.Notes]
            live-dir = /notes
            no equals sign here
            bad key! = 2
            [not an app id]
            ignored = 3
            [org.restored.Tmux
            ignored = 4
            [org.restored.Tmux]
            pane-contents = true
            """
        let file = AppOptionsFile(parsing: text, file: FilePath("/c/restored.conf"))
        #expect(file.options == [Self.notes: ["live-dir": "/notes"], Self.tmux: ["pane-contents": "true"]])
        #expect(file.problems.map(\.line) == [1, 4, 5, 6, 8])
        #expect(file.problems.map(\.description).allSatisfy { $0.hasPrefix("/c/restored.conf:") && !$0.contains("\n") })
        #expect(file.problems[0].description == "/c/restored.conf:1: orphan is outside any [APP-ID] section; the line is ignored")
        #expect(file.problems[1].description == "/c/restored.conf:4: expected key = value, an [APP-ID] section or a # comment; the line is ignored")
        #expect(file.problems[3].description.hasPrefix("/c/restored.conf:6: [not an app id] is not an app id ("))
        #expect(file.problems[4].description == "/c/restored.conf:8: a section header must end with ]; the section's options are ignored")
    }

    @Test("The XDG directories: $XDG_CONFIG_HOME (or ~/.config), then each of $XDG_CONFIG_DIRS (or /etc/xdg)")
    func directories() {
        #expect(AppOptionsFile.directories(environment: ["HOME": "/home/me"]).map(\.string) == ["/home/me/.config/restored", "/etc/xdg/restored"])
        #expect(AppOptionsFile.directories(environment: ["HOME": "/h", "XDG_CONFIG_HOME": "/cfg", "XDG_CONFIG_DIRS": "/a:relative:/b"]).map(\.string)
            == ["/cfg/restored", "/a/restored", "/b/restored"])
        // A relative XDG_CONFIG_HOME is invalid per the spec: the default is used.
        #expect(AppOptionsFile.directories(environment: ["HOME": "/h", "XDG_CONFIG_HOME": "cfg"]).first?.string == "/h/.config/restored")
    }

    @Test("Real files: the user's directory wins over the system's, a later file over an earlier one; missing directories are no problem")
    func precedence() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("options-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let user = root.appendingPathComponent("user/restored")
        let system = root.appendingPathComponent("system/restored")
        try FileManager.default.createDirectory(at: user, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        try "[org.example.Notes]\nlive-dir = /system\nkept = system\n".write(to: system.appendingPathComponent("restored.conf"), atomically: true, encoding: .utf8)
        try "[org.example.Notes]\nlive-dir = /user-a\n".write(to: user.appendingPathComponent("a.conf"), atomically: true, encoding: .utf8)
        try "[org.example.Notes]\nlive-dir = /user-b\nnonsense\n".write(to: user.appendingPathComponent("b.conf"), atomically: true, encoding: .utf8)
        try "[org.example.Notes]\nlive-dir = /not-a-conf-file\n".write(to: user.appendingPathComponent("b.conf.orig"), atomically: true, encoding: .utf8)
        let loaded = AppOptionsFile.load(from: [FilePath(user.path), FilePath(system.path), FilePath(root.path + "/absent")])
        #expect(loaded.options[Self.notes] == ["live-dir": "/user-b", "kept": "system"])
        #expect(loaded.problems.map(\.description) == ["\(user.path)/b.conf:3: expected key = value, an [APP-ID] section or a # comment; the line is ignored"])
    }
}
