import CRestoredPlugin
import Foundation
import Logging
import RestoredArchive
@testable import RestoredEngine
import SystemPackage
import Testing
import ProcFiles

/// Loading plugins with dlopen: what loads, what is refused, and why.
@Suite struct PluginLoaderTests {
    /// A plugin directory holding copies of built plugins under chosen names.
    private func directory(_ files: [(name: String, plugin: String)], mode: mode_t = 0o755) throws -> (TemporaryDirectory, FilePath) {
        let root = try TemporaryDirectory()
        let plugins = try root.subdirectory("plugins")
        for file in files {
            try FileManager.default.copyItem(atPath: BuildProducts.plugin(file.plugin).string, toPath: plugins.appending(file.name).string)
        }
        chmod(plugins.string, mode)
        return (root, plugins)
    }

    @Test("Two Swift plugins and a C plugin work side by side, sharing one copy of the SDK")
    func sideBySide() throws {
        let plugins = try PluginFixture(["ExampleNotesPlugin", "TestScenarioPlugin", "ExampleCounterPlugin"])
        #expect(plugins.catalog.refusals.isEmpty)
        #expect(Set(plugins.catalog.plugins.map(\.appID.rawValue)) == ["org.example.Notes", "org.restored.test.Scenario", "org.example.Counter"])

        // Each Swift plugin resolves the SDK's own symbol to the same address in
        // the same image: libRestorationKit.so, loaded once.
        var identities: Set<UInt> = []
        for name in ["ExampleNotesPlugin", "TestScenarioPlugin"] {
            let handle = try #require(dlopen(plugins.directory.path.appending("plugins/lib\(name).so").string, RTLD_NOW | RTLD_NOLOAD))
            let symbol = try #require(dlsym(handle, "restoration_kit_identity"))
            #expect(Self.image(containing: symbol)?.hasSuffix("/libRestorationKit.so") == true)
            typealias Identity = @convention(c) () -> UnsafeRawPointer
            identities.insert(UInt(bitPattern: unsafeBitCast(symbol, to: Identity.self)()))
        }
        #expect(identities.count == 1)

        // And all three preserve and restore in this one process.
        let fixture = try EngineFixture()
        let notes = try fixture.directory.subdirectory("notes")
        let options: [String: [String: String]] = [
            "org.example.Notes": ["live-dir": notes.string],
            "org.example.Counter": ["live-state": fixture.directory.path.appending("counter").string],
        ]
        for plugin in plugins.catalog.plugins {
            let session = try plugin.makeSession(options: options[plugin.appID.rawValue] ?? [:], logger: fixture.log.logger())
            #expect(fixture.engine.preserve(session).outcome == .saved(generation: 1))
            let restored = fixture.engine.restore(try plugin.makeSession(options: options[plugin.appID.rawValue] ?? [:], logger: fixture.log.logger()))
            #expect(restored.outcome == .restored)
        }
    }

    /// The file mapped at `address`, from /proc/self/maps.
    static func image(containing address: UnsafeMutableRawPointer) -> String? {
        let target = UInt(bitPattern: address)
        let maps = ProcFile.text(atPath: "/proc/self/maps") ?? ""
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6 else { continue }
            let range = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            if range.count == 2, range[0] <= target, target < range[1] { return String(fields[5]) }
        }
        return nil
    }

    @Test("Refusals: missing symbol, wrong ABI, invalid app id, duplicate app id, missing callback; each with one log line naming the file")
    func refusals() throws {
        let (root, plugins) = try directory([
            ("a-counter.so", "ExampleCounterPlugin"),
            ("b-counter-again.so", "ExampleCounterPlugin"),
            ("c-invalid-id.so", "TestPluginInvalidAppID"),
            ("d-no-symbol.so", "TestPluginNoSymbol"),
            ("e-wrong-abi.so", "TestPluginWrongABI"),
            ("f-missing-callback.so", "TestPluginMissingCallback"),
        ])
        defer { withExtendedLifetime(root) {} }
        let log = LogCapture()
        let catalog = PluginLoader(directories: [plugins]).load(logger: log.logger())

        #expect(catalog.plugins.map(\.file.lastComponent?.string) == ["a-counter.so"])
        let reasons = Dictionary(uniqueKeysWithValues: catalog.refusals.map { ($0.file.lastComponent!.string, $0) })
        #expect(reasons["b-counter-again.so"]?.reason == .duplicateAppID("org.example.Counter", loadedFrom: plugins.appending("a-counter.so")))
        #expect(reasons["c-invalid-id.so"]?.code == "invalid-app-id")
        #expect(reasons["d-no-symbol.so"]?.reason == .missingSymbol)
        #expect(reasons["e-wrong-abi.so"]?.reason == .wrongABIVersion(found: 99, expected: 1))
        // R6: a missing should_save is not a "no" that would discard the archive.
        #expect(reasons["f-missing-callback.so"]?.reason == .missingCallback("should_save_application_state"))

        let errors = log.messages.filter { $0.hasPrefix("error:") }
        #expect(errors.count == 5)
        for (name, refusal) in reasons {
            let lines = errors.filter { $0.contains(plugins.appending(name).string) }
            #expect(lines.count == 1, "one line for \(name)")
            #expect(lines.first?.contains(refusal.description) == true)
        }
        #expect(reasons["e-wrong-abi.so"]?.description.contains("speaks plugin ABI 99") == true)
        #expect(reasons["c-invalid-id.so"]?.description.contains("../../etc") == true)
    }

    @Test("A plugin file or directory writable by other users is refused, before it is loaded")
    func insecurePermissions() throws {
        let (root, plugins) = try directory([("counter.so", "ExampleCounterPlugin")])
        defer { withExtendedLifetime(root) {} }
        let file = plugins.appending("counter.so")

        chmod(file.string, 0o666)
        var catalog = PluginLoader(directories: [plugins]).load(logger: LogCapture().logger())
        #expect(catalog.plugins.isEmpty)
        #expect(catalog.refusals.first?.reason == .insecurePermissions(file, mode: UInt32(S_IFREG | 0o666), owner: geteuid()))
        #expect(catalog.refusals.first?.description.contains("chmod go-w") == true)

        chmod(file.string, 0o755)
        chmod(plugins.string, 0o777)
        catalog = PluginLoader(directories: [plugins]).load(logger: LogCapture().logger())
        #expect(catalog.plugins.isEmpty)
        #expect(catalog.refusals.first?.code == "insecure-permissions")

        chmod(plugins.string, 0o755)
        catalog = PluginLoader(directories: [plugins]).load(logger: LogCapture().logger())
        #expect(catalog.plugins.count == 1)
    }

    @Test("The search path: RESTORED_PLUGIN_PATH first, then the user's, the install prefix's and the system's directories, each once")
    func searchPath() {
        let environment = ["RESTORED_PLUGIN_PATH": "/opt/a:/opt/b", "XDG_DATA_HOME": "/home/u/.data", "HOME": "/home/u"]
        let path = PluginLoader.searchPath(environment: environment, executable: "/home/u/.local/bin/restored")
        #expect(path.map(\.string) == [
            "/opt/a", "/opt/b", "/home/u/.data/restored/plugins", "/home/u/.local/lib/restored/plugins", "/usr/local/lib/restored/plugins", "/usr/lib/restored/plugins",
        ])
        // Installed in /usr/local or /usr: its directory is the system's, named once.
        #expect(PluginLoader.searchPath(environment: environment, executable: "/usr/local/bin/restored").map(\.string) == [
            "/opt/a", "/opt/b", "/home/u/.data/restored/plugins", "/usr/local/lib/restored/plugins", "/usr/lib/restored/plugins",
        ])
        // A build directory is no install prefix.
        #expect(PluginLoader.searchPath(environment: environment, executable: "/src/restored/.build/debug/restored").count == 5)
        #expect(PluginLoader.searchPath(environment: ["HOME": "/home/u"], executable: nil).first?.string == "/home/u/.local/share/restored/plugins")
    }

    @Test("Copies of the benchmarks' synthetic plugin named libSyntheticPlugin-<N>.so each serve the app Synthetic<N>")
    func syntheticCopies() throws {
        let (root, plugins) = try directory([("libSyntheticPlugin-7.so", "SyntheticPlugin"), ("libSyntheticPlugin-12.so", "SyntheticPlugin")])
        let catalog = withExtendedLifetime(root) { PluginLoader(directories: [plugins]).load(logger: LogCapture().logger()) }
        #expect(catalog.refusals.isEmpty)
        #expect(Set(catalog.plugins.map(\.appID.rawValue)) == ["org.restored.bench.Synthetic7", "org.restored.bench.Synthetic12"])
    }

    @Test("A descriptor is read by whole fields: a struct_size that ends inside a callback (no compiler makes one) leaves that callback out, where half a pointer would have been called; the last field and everything after it are read up to the host's size")
    func descriptorReadByWholeFields() throws {
        var table = restored_plugin_descriptor()
        table.abi_version = RESTORED_PLUGIN_ABI_VERSION
        table.traits = RESTORED_PLUGIN_RESTORES_INTO_RUNNING_APP.rawValue
        table.save_decision = { _, _, _ in RESTORED_OK }
        table.list_tree = { _, _ in RESTORED_OK }
        let layout = MemoryLayout<restored_plugin_descriptor>.self
        let traits = layout.offset(of: \.traits)!, saveDecision = layout.offset(of: \.save_decision)!, listTree = layout.offset(of: \.list_tree)!
        let cases: [(size: Int, traits: Bool, saveDecision: Bool, listTree: Bool)] = [
            (traits, false, false, false), (traits + 4, true, false, false), (saveDecision, true, false, false),
            (saveDecision + 4, true, false, false), (saveDecision + 8, true, true, false), (listTree + 4, true, true, false),
            (listTree + 8, true, true, true), (layout.size + 64, true, true, true),
        ]
        for expected in cases {
            table.struct_size = UInt32(expected.size)
            let loaded = withUnsafePointer(to: table) { original in
                LoadedPlugin(file: FilePath("/nonexistent/libSizes.so"), appID: try! AppID("org.restored.test.Sizes"), descriptor: original)
            }
            let copy = loaded.descriptor.pointee
            #expect((copy.traits != 0) == expected.traits, "size \(expected.size)")
            #expect((copy.save_decision != nil) == expected.saveDecision, "size \(expected.size)")
            #expect((copy.list_tree != nil) == expected.listTree, "size \(expected.size)")
        }
    }

    @Test("A missing plugin directory is skipped quietly")
    func missingDirectory() {
        let catalog = PluginLoader(directories: ["/nonexistent/restored/plugins"]).load(logger: LogCapture().logger())
        #expect(catalog.plugins.isEmpty && catalog.refusals.isEmpty)
    }
}
