// scripts/install: the layout a Linux packager expects, staged in a DESTDIR,
// builds the plugin guide's C plugin through pkg-config alone and runs the plugin host.

import Foundation
import RestoredTestSupport
import Testing

@Suite("scripts/install")
struct InstallLayoutTests {
    /// The package's top-level directory, found from this source file.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The PREFIX the tests install under, inside their DESTDIR.
    static let prefix = "/usr"

    /// The configuration whose products these tests run from: the one
    /// scripts/install installs, already built, so it builds nothing.
    static let configuration = URL(fileURLWithPath: BuildProducts.directory).lastPathComponent == "release" ? "release" : "debug"

    /// Runs scripts/install with `DESTDIR=<directory>/stage`, without building,
    /// expecting exit 0, then `body` with the DESTDIR and the install's output.
    static func withInstallation(_ body: (_ destination: String, _ directory: TemporaryDirectory, _ install: CompletedCommand) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let destination = directory.appending("stage")
            var environment = ProcessInfo.processInfo.environment
            environment["DESTDIR"] = destination
            environment["PREFIX"] = prefix
            environment["CONFIGURATION"] = configuration
            environment["RESTORED_SKIP_BUILD"] = "1"
            let install = try await CompletedCommand.run(
                "/bin/bash", ["\(repository)/scripts/install"], environment: environment, in: URL(fileURLWithPath: directory.path)
            )
            try #require(install.status == 0, "scripts/install exited with \(install.status):\n\(install.output)\(install.error)")
            try await body(destination, directory, install)
        }
    }

    /// The permission bits of `path`, or nil if it does not exist.
    static func mode(of path: String) -> Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return (attributes[.posixPermissions] as? Int).map { $0 & 0o7777 }
    }

    /// The body of the first ```c block of the plugin guide's "### In C" section.
    static func readmeCExample() throws -> String {
        let readme = try String(contentsOfFile: "\(repository)/SDK/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        guard let section = lines.firstIndex(of: "### In C") else { throw TestFailure("SDK/README.md has no \"### In C\" section") }
        guard let opening = lines[section...].firstIndex(of: "```c"),
            !lines[section + 1..<opening].contains(where: { $0.hasPrefix("#") }),
            let closing = lines[(opening + 1)...].firstIndex(of: "```")
        else { throw TestFailure("SDK/README.md's \"### In C\" section has no ```c block") }
        return lines[(opening + 1)..<closing].joined(separator: "\n") + "\n"
    }

    /// `RESTORED_VERSION` of the runtime record's header, read as scripts/install reads it.
    static func restoredVersion() throws -> String {
        let header = "SDK/Sources/CRestoredRuntimeRecord/include/restored/runtime_record.h"
        let source = try String(contentsOfFile: "\(repository)/\(header)", encoding: .utf8)
        let prefix = "#define RESTORED_VERSION \""
        guard let line = source.split(separator: "\n").first(where: { $0.hasPrefix(prefix) && $0.hasSuffix("\"") })
        else { throw TestFailure("RESTORED_VERSION not found in \(header)") }
        return String(line.dropFirst(prefix.count).dropLast())
    }

    /// What `ldd` says of `library` for `executable`: the path it resolved,
    /// standardized, or nil; and its line (all of ldd's output without one).
    static func resolved(_ library: String, for executable: String, ldd: String, in directory: TemporaryDirectory) async throws -> (path: String?, report: String) {
        let run = try await CompletedCommand.run(
            ldd, [executable], environment: ["PATH": "/usr/bin:/bin", "LANG": "C"], in: URL(fileURLWithPath: directory.path)
        )
        guard let line = run.output.split(separator: "\n").first(where: { $0.contains(library) }) else { return (nil, run.output + run.error) }
        let report = line.trimmingCharacters(in: .whitespaces)
        guard let arrow = line.range(of: "=> "), let path = line[arrow.upperBound...].split(separator: " ").first, path.hasPrefix("/") else { return (nil, report) }
        return (URL(fileURLWithPath: String(path)).standardized.path, report)
    }

    @Test("scripts/install stages bin, libexec, lib, include and pkg-config in DESTDIR; the plugin guide's C plugin builds with pkg-config alone and the plugin host finds the installed SDK runtime")
    func layout() async throws {
        try await Self.withInstallation { destination, directory, install in
            let root = destination + Self.prefix

            // The layout, with the modes a package would ship.
            let expected: [(path: String, mode: Int)] = [
                ("bin/restored", 0o755),
                ("bin/restored-ctl", 0o755),
                ("libexec/restored/restored-plugin-host", 0o755),
                ("lib/restored/libRestorationKit.so", 0o644),
                ("lib/restored/plugins", 0o755),
                ("lib/restored/plugins/libTmuxPlugin.so", 0o644),
                ("lib/restored/plugins/libSessionPlugin.so", 0o644),
                ("include/restored/plugin.h", 0o644),
                ("lib/pkgconfig/restored-plugin.pc", 0o644),
                ("lib/systemd/user/restored.service", 0o644),
                ("share/dbus-1/services/org.restored1.service", 0o644),
                ("share/bash-completion/completions/restored-ctl", 0o644),
                ("share/zsh/site-functions/_restored-ctl", 0o644),
                ("share/fish/vendor_completions.d/restored-ctl.fish", 0o644),
                ("share/gnome-shell/extensions/window-places-legacy@restored", 0o755),
                ("share/gnome-shell/extensions/window-places-legacy@restored/metadata.json", 0o644),
                ("share/gnome-shell/extensions/window-places-legacy@restored/extension.js", 0o644),
                ("share/gnome-shell/extensions/window-places-legacy@restored/core.js", 0o644),
                ("share/gnome-shell/extensions/window-places@restored", 0o755),
                ("share/gnome-shell/extensions/window-places@restored/metadata.json", 0o644),
                ("share/gnome-shell/extensions/window-places@restored/extension.js", 0o644),
                ("share/gnome-shell/extensions/window-places@restored/core.js", 0o644),
                ("share/restored/kwin/places.js", 0o644),
            ]
            for (path, mode) in expected {
                let actual = Self.mode(of: "\(root)/\(path)")
                #expect(actual == mode, "PREFIX/\(path): mode \(actual.map { String($0, radix: 8) } ?? "missing"), expected \(String(mode, radix: 8))")
            }
            #expect(!FileManager.default.fileExists(atPath: "\(root)/bin/libRestorationKit.so"), "the SDK runtime belongs in PREFIX/lib/restored, not PREFIX/bin")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: "\(root)/lib/restored/plugins"))?.sorted() == ["libMediaPlayersPlugin.so", "libSessionPlugin.so", "libTmuxPlugin.so"], "the system plugin directory holds the plugins that need no configuration")
            let header = "SDK/Sources/CRestoredPlugin/include/restored/plugin.h"
            #expect(FileManager.default.contentsEqual(atPath: "\(root)/include/restored/plugin.h", andPath: "\(Self.repository)/\(header)"), "PREFIX/include/restored/plugin.h is not a copy of \(header)")
            if FileManager.default.fileExists(atPath: "\(Self.repository)/.build/plugins/GenerateManual/outputs") {
                for page in ["restored.1", "restored-ctl.1"] {
                    #expect(Self.mode(of: "\(root)/share/man/man1/\(page)") == 0o644, "PREFIX/share/man/man1/\(page) is missing or not 0644")
                }
            } else {
                #expect(install.error.contains("no man pages installed"), "without generated man pages, scripts/install says so on stderr:\n\(install.error)")
            }

            // The .pc file names the real PREFIX, never DESTDIR.
            let pc = try String(contentsOfFile: "\(root)/lib/pkgconfig/restored-plugin.pc", encoding: .utf8)
            #expect(pc.split(separator: "\n").contains("prefix=\(Self.prefix)"), "restored-plugin.pc:\n\(pc)")
            #expect(!pc.contains(destination), "restored-plugin.pc names DESTDIR:\n\(pc)")

            var tools: [String: String] = [:]
            for (tool, package) in [("cc", "gcc"), ("pkg-config", "pkg-config (scripts/setup installs it)"), ("nm", "binutils"), ("ldd", "libc-bin")] {
                guard let path = UnitFileTests.findExecutable(tool) else {
                    Issue.record("\(tool) not found: install the Debian package \(package)")
                    continue
                }
                tools[tool] = path
            }
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            let workDirectory = URL(fileURLWithPath: directory.path)

            // pkg-config: the plugin directory and version as installed.
            if let pkgConfig = tools["pkg-config"] {
                let environment = ["PATH": path, "LANG": "C", "PKG_CONFIG_PATH": "\(root)/lib/pkgconfig"]
                let plugindir = try await CompletedCommand.run(pkgConfig, ["--variable=plugindir", "restored-plugin"], environment: environment, in: workDirectory)
                #expect(plugindir.status == 0 && plugindir.output == "\(Self.prefix)/lib/restored/plugins\n", "pkg-config --variable=plugindir: \(plugindir.output)\(plugindir.error)")
                let version = try await CompletedCommand.run(pkgConfig, ["--modversion", "restored-plugin"], environment: environment, in: workDirectory)
                #expect(version.output == "\(try Self.restoredVersion())\n", "pkg-config --modversion: \(version.output)\(version.error)")
            }

            // The plugin guide's C plugin, built with only what pkg-config says.
            if tools["cc"] != nil, tools["pkg-config"] != nil {
                try Self.readmeCExample().write(toFile: directory.appending("hello.c"), atomically: false, encoding: .utf8)
                let environment = [
                    "PATH": path, "LANG": "C",
                    "PKG_CONFIG_PATH": "\(root)/lib/pkgconfig", "PKG_CONFIG_SYSROOT_DIR": destination,
                ]
                let cflags = try await CompletedCommand.run("/bin/sh", ["-c", "pkg-config --cflags restored-plugin"], environment: environment, in: workDirectory)
                #expect(cflags.output.contains("-I\(root)/include"), "pkg-config --cflags restored-plugin: \(cflags.output)\(cflags.error)")
                let compile = try await CompletedCommand.run(
                    "/bin/sh", ["-c", "cd \"$1\" && cc -shared -fPIC $(pkg-config --cflags restored-plugin) hello.c -o libhello.so", "sh", directory.path],
                    environment: environment, in: workDirectory
                )
                #expect(compile.status == 0, "the plugin guide's C plugin does not build against the installed header:\n\(compile.output)\(compile.error)")
                #expect(FileManager.default.fileExists(atPath: directory.appending("libhello.so")), "cc made no libhello.so")
                if compile.status == 0, let nm = tools["nm"] {
                    let symbols = try await CompletedCommand.run(nm, ["-D", "--defined-only", directory.appending("libhello.so")], environment: ["PATH": path, "LANG": "C"], in: workDirectory)
                    let exported = symbols.output.split(separator: "\n").contains { $0.hasSuffix(" T restored_plugin_v1") }
                    #expect(exported, "libhello.so does not export restored_plugin_v1:\n\(symbols.output)\(symbols.error)")
                }
            }

            // The plugin host finds the installed SDK runtime through its RUNPATH.
            if let ldd = tools["ldd"] {
                let host = "\(root)/libexec/restored/restored-plugin-host"
                let (found, report) = try await Self.resolved("libRestorationKit.so", for: host, ldd: ldd, in: directory)
                #expect(found == "\(root)/lib/restored/libRestorationKit.so", "ldd \(host):\n\(report)")
            }
        }
    }

    @Test("Installed under any prefix, the plugins scripts/install put in PREFIX/lib/restored/plugins are searched: restored-ctl doctor loads them from there, as restored does (one search path)")
    func pluginsOfThePrefix() async throws {
        try await Self.withInstallation { destination, directory, _ in
            let root = destination + Self.prefix
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = directory.appending("home")
            environment["XDG_DATA_HOME"] = directory.appending("data")
            environment["XDG_STATE_HOME"] = directory.appending("state")
            environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(directory.appending("no-bus"))"
            environment.removeValue(forKey: "RESTORED_PLUGIN_PATH")
            let doctor = try await CompletedCommand.run("\(root)/bin/restored-ctl", ["doctor"], environment: environment, in: URL(fileURLWithPath: directory.path))
            #expect(doctor.output.contains("[ok]      plugin directory \(root)/lib/restored/plugins: 3 plugins load, 0 refused"), "\(doctor.output)\(doctor.error)")
            #expect(doctor.output.contains("plugin \(root)/lib/restored/plugins/libTmuxPlugin.so: loads in its plugin host; serves org.restored.Tmux"), "\(doctor.output)")
        }
    }

    @Test("installed restored and restored-ctl find libRestorationKit.so in PREFIX/lib/restored")
    func daemonFindsRuntime() async throws {
        guard let ldd = UnitFileTests.findExecutable("ldd") else {
            Issue.record("ldd not found: install the Debian package libc-bin")
            return
        }
        try await Self.withInstallation { destination, directory, _ in
            let root = destination + Self.prefix
            // Both link libRestorationKit.so; their RUNPATH has $ORIGIN/../lib/restored.
            for executable in ["restored", "restored-ctl"] {
                let (found, report) = try await Self.resolved("libRestorationKit.so", for: "\(root)/bin/\(executable)", ldd: ldd, in: directory)
                #expect(found == "\(root)/lib/restored/libRestorationKit.so", "ldd PREFIX/bin/\(executable):\n\(report)")
            }
        }
    }
}
