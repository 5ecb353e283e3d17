import Foundation
import RestoredDBus
import RestoredTestSupport
import Testing

/// Plugins' options from `$XDG_CONFIG_HOME/restored/*.conf` in the real
/// daemon: read at start and at ReloadPlugins, `--option` winning, a
/// malformed line one log line.
@Suite struct OptionsFileIntegrationTests {
    typealias Environment = DaemonIntegrationTests.Environment
    static let faulty = PluginHostFaultTests.faulty

    @Test("Options come from the configuration file, a malformed line is one log line naming file and line, ReloadPlugins reads the file again, and --option wins")
    func optionsFromFile() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("TestFaultyPlugin")
        try environment.writeOptions("""
            [\(Self.faulty)]
            fault = exit
            this line is broken
            """)
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"])
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }

        // The file's fault reached the plugin: its host exits at the save.
        #expect(try await admin.call("Save", [.strings([Self.faulty])]) == [.uint32(0)])
        #expect(try await admin.apps()[Self.faulty]?["LastDetail"]?.stringValue?.hasPrefix("its plugin host exited with status 0") == true)
        let file = environment.configuration + "/restored/restored.conf"
        let log = try String(contentsOfFile: environment.bus.directory.path + "/restored.log", encoding: .utf8)
        let logged = log.split(separator: "\n").filter { $0.contains(file) }
        #expect(logged.count == 1, "\(log)")
        // Options set before the first walk need no second plugin host.
        #expect(!log.contains("its options changed"))
        #expect(logged.first?.contains("\(file):3: expected key = value") == true)
        // The notes app, configured on the command line, is untouched.
        #expect(try await admin.call("Save", [.strings(["org.example.Notes"])]) == [.uint32(1)])

        // A changed file is read at ReloadPlugins; the plugin gets the new
        // options from a new plugin host at its next walk.
        try environment.writeOptions("[\(Self.faulty)]\nfault = none\n")
        _ = try await admin.call("ReloadPlugins")
        #expect(try await admin.call("Save", [.strings([Self.faulty])]) == [.uint32(1)])
        // The same with a plugin host that is up and has created the plugin:
        // it is replaced before the next walk.
        let running = try #require(try await admin.apps()[Self.faulty]?["PluginHostPid"]?.uint64Value)
        #expect(running > 0)
        try environment.writeOptions("[\(Self.faulty)]\nfault = exit\n")
        _ = try await admin.call("ReloadPlugins")
        #expect(try await admin.call("Save", [.strings([Self.faulty])]) == [.uint32(0)])
        #expect(try String(contentsOfFile: environment.bus.directory.path + "/restored.log", encoding: .utf8).contains("its options changed; starting a new plugin host with them"))
        #expect(PluginHostFaultTests.isGone(UInt32(running)))
        #expect(await daemon.terminated() == 0)

        // --option wins over the file.
        try environment.writeOptions("[\(Self.faulty)]\nfault = exit\n")
        let again = try environment.startDaemon(log: "restored-2.log", arguments: ["--autosave-interval", "0", "--option", "\(Self.faulty):fault=none"])
        _ = try await environment.waitForNotify("READY=1")
        #expect(try await admin.call("Save", [.strings([Self.faulty])]) == [.uint32(1)])
        #expect(await again.terminated() == 0)
    }
}
