import AppLaunching
import Foundation
import DesktopEntries
import Glibc
import MediaPlayers
import ProcFiles
import Testing

/// What the media players' plugin trusts of a player, on plain values:
/// which names are apps, which entries it restores into, which claims
/// hold, and what an archive keeps of a URL (docs/apps.md, "Media players").
@Suite struct MediaPlayerPolicyTests {
    static func entry(_ id: String, _ body: String) throws -> DesktopEntry {
        try DesktopEntry(parsing: "[Desktop Entry]\nType=Application\nName=\(id)\n" + body, id: id, path: "/usr/share/applications/\(id)")
    }

    @Test("A browser's tabs, a proxy, a phone's players and browser integrations are no apps to reopen; players are, an instance's suffix included; names outside MPRIS's prefix are none")
    func names() throws {
        for name in ["firefox.instance_1_23", "chromium.instance42", "playerctld", "kdeconnect.mpris_1a2b", "plasma-browser-integration", "GSConnect.phone", "brave.instance9"] {
            let player = try #require(MediaPlayerName("org.mpris.MediaPlayer2." + name))
            #expect(player.notAppReason != nil, "\(name)")
        }
        for name in ["vlc", "mpv", "mpv.instance4242", "audacious", "rhythmbox"] {
            let player = try #require(MediaPlayerName("org.mpris.MediaPlayer2." + name))
            #expect(player.notAppReason == nil, "\(name)")
        }
        #expect(MediaPlayerName("org.mpris.MediaPlayer2.mpv.instance4242")?.player == "mpv")
        #expect(MediaPlayerName("org.mpris.MediaPlayer2.") == nil)
        #expect(MediaPlayerName("org.example.Player") == nil)
    }

    @Test("A claimed DesktopEntry is a desktop file id or nothing: no path, no dot first, nothing but letters, digits, dots, dashes and underscores")
    func claimedEntries() {
        #expect(MediaPlayerPolicy.desktopID(claimed: "mpv") == "mpv.desktop")
        #expect(MediaPlayerPolicy.desktopID(claimed: "org.gnome.Rhythmbox3") == "org.gnome.Rhythmbox3.desktop")
        #expect(MediaPlayerPolicy.desktopID(claimed: "vlc.desktop") == "vlc.desktop")
        for hostile in ["", "../../etc/passwd", "a/b", ".hidden", "mpv; rm -rf ~", "mpv#2", "mpv\n", String(repeating: "a", count: 300)] {
            #expect(MediaPlayerPolicy.desktopID(claimed: hostile) == nil, "\(hostile)")
        }
    }

    @Test("restored restores into an installed media player's entry (AudioVideo, Audio or Video), never a browser's, one that is hidden or has no Exec, or one whose program runs the files it is handed")
    func entries() throws {
        #expect(MediaPlayerPolicy.reasonNotRestored(try Self.entry("mpv.desktop", "Exec=mpv --player-operation-mode=pseudo-gui -- %U\nCategories=AudioVideo;Audio;Video;Player;\n")) == nil)
        #expect(MediaPlayerPolicy.reasonNotRestored(try Self.entry("music.desktop", "Exec=music %U\nCategories=Audio;\n")) == nil)
        #expect(MediaPlayerPolicy.reasonNotRestored(try Self.entry("editor.desktop", "Exec=editor %F\nCategories=Utility;\n"))?.contains("no media player") == true)
        #expect(MediaPlayerPolicy.reasonNotRestored(try Self.entry("web.desktop", "Exec=web %u\nCategories=Network;WebBrowser;AudioVideo;\n"))?.contains("web browser") == true)
        #expect(MediaPlayerPolicy.reasonNotRestored(try Self.entry("run.desktop", "Exec=sh /usr/bin/play-it %f\nCategories=AudioVideo;\n"))?.contains("runs the files") == true)
        #expect(MediaPlayerPolicy.reasonNotRestored(try Self.entry("gone.desktop", "Exec=gone %U\nCategories=AudioVideo;\nHidden=true\n")) != nil)
        #expect(MediaPlayerPolicy.reasonNotRestored(nil) != nil)
    }

    @Test("A claim of an entry holds only when the name's process runs that very program (Exec found in the search path, or TryExec), as /proc/PID/exe says; a program merely named like it does not")
    func processRunsEntry() throws {
        let own = try #require(ProcProcess.executable(of: getpid()))
        let name = String(own.split(separator: "/").last ?? "")
        let directory = String(own.dropLast(name.count + 1))
        #expect(MediaPlayerPolicy.process(getpid(), runs: try Self.entry("own.desktop", "Exec=\(own) %U\nCategories=AudioVideo;\n"), searchPath: "/nonexistent"))
        #expect(MediaPlayerPolicy.process(getpid(), runs: try Self.entry("own.desktop", "Exec=\(name) %U\nCategories=AudioVideo;\n"), searchPath: "/nonexistent:" + directory))
        #expect(MediaPlayerPolicy.process(getpid(), runs: try Self.entry("own.desktop", "TryExec=\(own)\nExec=wrapper %U\nCategories=AudioVideo;\n"), searchPath: "/nonexistent"))
        // Another file of the same name first in the search path: not the program this process runs.
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("media-policy-\(getpid())").path
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: other) }
        _ = FileManager.default.createFile(atPath: other + "/" + name, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        #expect(!MediaPlayerPolicy.process(getpid(), runs: try Self.entry("own.desktop", "Exec=\(name) %U\nCategories=AudioVideo;\n"), searchPath: other + ":" + directory))
        #expect(!MediaPlayerPolicy.process(getpid(), runs: try Self.entry("own.desktop", "Exec=\(name) %U\nCategories=AudioVideo;\n"), searchPath: "/nonexistent"))
        #expect(!MediaPlayerPolicy.process(getpid(), runs: try Self.entry("mpv.desktop", "Exec=mpv %U\nCategories=AudioVideo;\n"), searchPath: "/usr/bin:/bin"))
        #expect(!MediaPlayerPolicy.process(-1, runs: try Self.entry("own.desktop", "Exec=\(own) %U\n"), searchPath: directory))
    }

    @Test("A peer's position or length out of bounds (negative, Int64.min, past a thousand days) is no position; a saved one is clamped")
    func hostilePositions() {
        for hostile: Int64 in [-1, .min, .max, SavedMediaPlayer.longestPosition + 1] {
            let state = MediaPlayerState(app: [:], player: ["Position": .int64(hostile), "Metadata": .properties([("mpris:length", .int64(hostile))])])
            #expect(state.position == nil && state.length == nil, "\(hostile)")
        }
        let fine = MediaPlayerState(app: [:], player: ["Position": .int64(30_000_000), "Metadata": .properties([("mpris:length", .uint64(90_000_000))])])
        #expect(fine.position == 30_000_000 && fine.length == 90_000_000)
        #expect(SavedMediaPlayer(desktopID: "mpv.desktop", url: "file:///a", position: .max, playing: false).position == SavedMediaPlayer.longestPosition)
        #expect(SavedMediaPlayer(desktopID: "mpv.desktop", url: "file:///a", position: .min, playing: false).position == 0)
    }

    @Test("A URL reopens only when it parses, names a document's scheme and is no option: the one rule of both plugins")
    func reopenedURLs() throws {
        let player = try Self.entry("mpv.desktop", "Exec=mpv -- %U\nCategories=AudioVideo;\n")
        #expect(DesktopAppLauncher.mayOpen("file:///music/a%20b.flac", with: player))
        #expect(DesktopAppLauncher.mayOpen("https://media.example/live.ogg", with: player))
        #expect(DesktopAppLauncher.mayOpen("/music/a b.flac", with: player))
        for hostile in ["https://media example/a b.ogg", "https://[::1/x", "javascript://alert(1)", "-Ohttps://x.example/a", "file:///a\u{1b}[2Jb", "vlc://pause"] {
            #expect(!DesktopAppLauncher.mayOpen(hostile, with: player), "\(hostile)")
        }
    }

    @Test("A URL keeps no user, password, query or fragment (where tokens travel) unless the user keeps them; paths and file URLs are kept as they are")
    func keptURLs() {
        #expect(DesktopAppLauncher.keptForm(of: "https://ada:secret@media.example/a%20b.mp3?token=abc&x=1#t=30", keepingQueries: false) == "https://media.example/a%20b.mp3")
        #expect(DesktopAppLauncher.keptForm(of: "https://media.example/a.mp3?token=abc", keepingQueries: true) == "https://media.example/a.mp3?token=abc")
        #expect(DesktopAppLauncher.keptForm(of: "https://media.example/plain.ogg", keepingQueries: false) == "https://media.example/plain.ogg")
        #expect(DesktopAppLauncher.keptForm(of: "file:///music/a%3Fb.flac", keepingQueries: false) == "file:///music/a%3Fb.flac")
        #expect(DesktopAppLauncher.keptForm(of: "/music/what?.flac", keepingQueries: false) == "/music/what?.flac")
    }
}
