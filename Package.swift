// swift-tools-version:6.0
//
// restored: iOS-style state preservation and restoration for the Linux desktop.
//
// Where things are (docs/repository.md, "The repository map", draws the same):
// - SDK/ (a package of its own): RestorationKit, the plugin authors' SDK;
//   RestoredState, the typed values and wire format shared by the host and
//   every Swift plugin; CRestoredPlugin, the C ABI header `restored/plugin.h`.
// - Sources/: restored itself, and what it shares with its plugins:
//   the daemon, restored-ctl, the plugin hosts, the engine and archives,
//   D-Bus, systemd, the logout signals, and the system helpers.
// - Plugins/: the plugins built with the package (tmux, the session, the
//   authors' examples), and in Plugins/Libraries/ the libraries that only
//   plugins use (tmux, Neovim, desktop entries, app discovery and launch).
// - Tests/, Benchmarks/: tests and the plugins and tools only they use.
//
// Names: `Restored…` is restored's own (the daemon's side); a library for
// plugins is named for what it speaks to or does (TmuxControl,
// DesktopEntries, UnitLaunching); `C…` is C (a shim whose symbols are
// prefixed `c_restored_`, or a system library); a plugin ends in `Plugin`;
// a test target is its module's name and `Tests`.
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The engine runs on the save path (suspend!) and is single-threaded per
// plugin instance: it is built without the runtime exclusivity checks, which
// cost a fifth of a save (restored-bench codec). The compiler's static
// checks still apply.
let hotPathSwift = strictSwift + [.unsafeFlags(["-enforce-exclusivity=unchecked"])]

// The packages the targets below use.
let system = Target.Dependency.product(name: "SystemPackage", package: "swift-system")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let restorationKit = Target.Dependency.product(name: "RestorationKit", package: "SDK")
let pluginHeader = Target.Dependency.product(name: "CRestoredPlugin", package: "SDK")
/// The record of the runtime and SDK an image was built against, in every
/// Swift plugin and in restored's own executables (their version).
let runtimeRecord = Target.Dependency.product(name: "RestoredRuntimeRecord", package: "SDK")

/// A Swift module of restored in `Sources/`.
func module(_ name: String, _ dependencies: [Target.Dependency] = [], settings: [SwiftSetting] = strictSwift) -> Target {
    .target(name: name, dependencies: dependencies, swiftSettings: settings)
}

/// A library only plugins use, in `Plugins/Libraries/`.
func pluginLibrary(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Plugins/Libraries/\(name)", swiftSettings: strictSwift)
}

/// A plugin (a shared object restored loads) at `path`, in Swift or C
/// (the Swift settings do not touch a C target).
func plugin(_ name: String, _ dependencies: [Target.Dependency], path: String) -> Target {
    .target(name: name, dependencies: dependencies, path: path, swiftSettings: strictSwift)
}

/// The plugins built with the package: (name, dependencies, directory).
let plugins: [(name: String, dependencies: [Target.Dependency], path: String)] = [
    // The real plugins.
    ("TmuxPlugin", ["SystemSupport", "TmuxControl", "TerminalPrograms", "NeovimControl", "NeovimState", "PluginToolkit", "MessagePack", "SavedText", restorationKit, runtimeRecord, system], "Plugins/TmuxPlugin"),
    ("SessionPlugin", ["SystemSupport", "WindowManagerIPC", "NeovimControl", "NeovimState", "MessagePack", "AppDiscovery", "AppLaunching", "DesktopEntries", "PluginSupport", "PluginToolkit", "ProcFiles", "TerminalPrograms", "X11Client", "UnitLaunching", "RestoredDBus", "SavedText", restorationKit, runtimeRecord], "Plugins/SessionPlugin"),
    // Examples for plugin authors (SDK/README.md).
    ("ExampleHelloPlugin", [restorationKit, runtimeRecord], "Plugins/ExampleHelloPlugin"),
    ("ExampleNotesPlugin", [restorationKit, runtimeRecord], "Plugins/ExampleNotesPlugin"),
    ("ExampleCounterPlugin", [pluginHeader], "Plugins/ExampleCounterPlugin"),
    ("ExampleMpvPlugin", ["PluginToolkit", restorationKit, runtimeRecord, system], "Plugins/ExampleMpvPlugin"),
    // The synthetic app the benchmarks preserve and restore.
    ("SyntheticPlugin", [restorationKit, runtimeRecord], "Benchmarks/SyntheticPlugin"),
    // Plugins that exist for the tests: scenarios and each kind of mistake.
    ("TestScenarioPlugin", [restorationKit, runtimeRecord], "Tests/Plugins/TestScenarioPlugin"),
    ("TestPluginWrongABI", [pluginHeader], "Tests/Plugins/TestPluginWrongABI"),
    ("TestPluginInvalidAppID", [pluginHeader], "Tests/Plugins/TestPluginInvalidAppID"),
    ("TestPluginNoSymbol", [], "Tests/Plugins/TestPluginNoSymbol"),
    ("TestPluginCrashOnLoad", [runtimeRecord], "Tests/Plugins/TestPluginCrashOnLoad"),
    ("TestPluginMissingCallback", [pluginHeader], "Tests/Plugins/TestPluginMissingCallback"),
    ("TestFaultyPlugin", [pluginHeader, runtimeRecord], "Tests/Plugins/TestFaultyPlugin"),
    ("TestPluginMistakes", [pluginHeader], "Tests/Plugins/TestPluginMistakes"),
]

/// A test target, `Tests/<name>`.
func tests(_ name: String, _ dependencies: [Target.Dependency], exclude: [String] = []) -> Target {
    .testTarget(name: name, dependencies: dependencies, exclude: exclude, swiftSettings: strictSwift)
}

/// An executable installed in PREFIX/bin, which finds the SDK runtime in
/// PREFIX/lib/restored.
func installedExecutable(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name, dependencies: dependencies, swiftSettings: strictSwift,
        linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/restored"])]
    )
}

let package = Package(
    name: "restored",
    products: [
        .executable(name: "restored", targets: ["Restored"]),
        .executable(name: "restored-ctl", targets: ["RestoredCtl"]),
        .executable(name: "restored-plugin-host", targets: ["RestoredPluginHost"]),
        .executable(name: "restored-demo", targets: ["RestoredDemo"]),
        .executable(name: "restored-bench", targets: ["RestoredBench"]),
        .executable(name: "restored-plugin-test", targets: ["RestoredPluginTest"]),
        // Linked into a plugin built outside this package.
        .library(name: "PluginToolkit", targets: ["PluginToolkit"]),
        .executable(name: "restored-test-seccomp", targets: ["RestoredTestSeccomp"]),
        .executable(name: "restored-test-bus-connect", targets: ["RestoredTestBusConnect"]),
        .executable(name: "restored-test-launch", targets: ["RestoredTestLaunch"]),
    ] + plugins.map { .library(name: $0.name, type: .dynamic, targets: [$0.name]) },
    dependencies: [
        .package(path: "SDK"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C: shims (symbols prefixed `c_restored_`) and system libraries.
        .target(name: "CRestoredSupport"),
        .target(name: "CRestoredHostSupport"),
        .target(name: "CRestoredProcess"),
        // An XSMP client over libSM/libICE (Debian's libsm-dev).
        .target(name: "CRestoredSessionClient", linkerSettings: [.linkedLibrary("SM"), .linkedLibrary("ICE")]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        // The system, under every layer: poll timeouts, program names, the
        // search path, XDG directories, option lists; child processes
        // (one posix_spawn, reaped through a pidfd); unix sockets with
        // deadlines and buffered reads.
        module("SystemSupport", ["CRestoredSupport"]),
        module("ProcessSpawning", ["CRestoredProcess", "SystemSupport", system]),
        // What restored's tests and restored-plugin-test both run: a private bus, a cgroup's processes.
        module("RestoredTesting", ["ProcessSpawning", "SystemSupport", system]),
        module("UnixSocket", ["SystemSupport", system]),
        module("X11Client", ["UnixSocket", "SystemSupport", system]),
        module("WindowManagerIPC", ["UnixSocket", "X11Client", "SystemSupport", system]),

        // The engine and its archives.
        module("RestoredArchive", ["CRestoredSupport", "SystemSupport", restorationKit, system]),
        module("RestoredEngine", ["RestoredArchive", "SystemSupport", "CRestoredHostSupport", restorationKit, pluginHeader, runtimeRecord, logging, system], settings: hotPathSwift),

        // Plugin hosts: what restored and its helpers say to each other, and
        // restored's side of the helper processes and their faults.
        module("RestoredHostProtocol", ["SystemSupport", "RestoredEngine", "RestoredArchive", restorationKit]),
        module("RestoredPluginHosting", ["SystemSupport", "ProcessSpawning", "RestoredHostProtocol", "RestoredEngine", "RestoredArchive", logging, system]),

        // The daemon and what it listens to.
        module("RestoredDBus", ["SystemSupport", "CDBus", "CRestoredSupport", logging]),
        module("RestoredSystemd", ["CSystemd", logging]),
        module("LogoutSignals", ["CRestoredSessionClient", "RestoredDBus", "WindowManagerIPC", "UnixSocket", "X11Client", "SystemSupport", logging, system]),
        module("RestoredDaemon", [
            "SystemSupport", "LogoutSignals", "RestoredDBus", "RestoredEngine", "RestoredArchive", "RestoredSystemd",
            "RestoredHostProtocol", "RestoredPluginHosting", "ProcessSpawning", "UnixSocket", "X11Client", "WindowManagerIPC", logging, serviceLifecycle, system,
        ]),
        // restored-ctl's model of the admin API and the archives.
        module("RestoredControl", [
            "RestoredDBus", "RestoredArchive", "RestoredEngine", "RestoredHostProtocol", "RestoredPluginHosting", "SystemSupport",
            restorationKit, logging, system,
        ]),

        // The libraries only plugins use (Plugins/Libraries/).
        pluginLibrary("SavedText"),
        pluginLibrary("MessagePack"),
        pluginLibrary("DesktopEntries", ["SystemSupport"]),
        pluginLibrary("ProcFiles", [system]),
        pluginLibrary("PluginSupport", ["SystemSupport"]),
        pluginLibrary("UnitLaunching", ["RestoredDBus", "ProcessSpawning", "SystemSupport", system]),
        pluginLibrary("AppDiscovery", ["DesktopEntries", "ProcFiles", "UnitLaunching", "SystemSupport"]),
        pluginLibrary("AppLaunching", ["DesktopEntries", "UnitLaunching", "RestoredDBus", "SavedText", "SystemSupport", system]),
        pluginLibrary("NeovimControl", ["MessagePack", "ProcFiles", "UnixSocket", "SystemSupport", system]),
        pluginLibrary("NeovimState", ["NeovimControl", restorationKit]),
        pluginLibrary("TerminalPrograms", ["ProcFiles", "SavedText", "SystemSupport", system]),
        pluginLibrary("TmuxControl", ["ProcessSpawning", "ProcFiles", "SavedText", "SystemSupport", system]),
        // The plugin authors' toolkit (SDK/README.md): launching an app as
        // the built-in plugins do, waits bounded by the walk, the user's
        // processes and a socket client with deadlines.
        pluginLibrary("PluginToolkit", ["UnitLaunching", "PluginSupport", "ProcFiles", "UnixSocket", "X11Client", "RestoredDBus", restorationKit, system]),

        // Executables.
        installedExecutable("Restored", [
            "RestoredDaemon", "RestoredPluginHosting", "RestoredEngine", "RestoredArchive", "RestoredSystemd",
            argumentParser, logging, serviceLifecycle, system,
        ]),
        installedExecutable("RestoredCtl", ["RestoredControl", "RestoredArchive", "RestoredEngine", argumentParser, system]),
        // One plugin's helper process. Installed in PREFIX/libexec/restored,
        // it finds the SDK runtime in PREFIX/lib/restored through its RUNPATH
        // (and beside itself in the build directory).
        .executableTarget(
            name: "RestoredPluginHost",
            dependencies: ["RestoredEngine", "RestoredArchive", "RestoredHostProtocol", "RestoredSystemd", "CRestoredHostSupport", "SystemSupport", logging],
            swiftSettings: strictSwift,
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../../lib/restored"])]
        ),
        // Runs one plugin through a save, its app's end and a restore, on a
        // private bus, optionally under the installed unit's sandbox.
        installedExecutable("RestoredPluginTest", ["RestoredDaemon", "RestoredEngine", "RestoredDBus", "RestoredTesting", "ProcFiles", "ProcessSpawning", "SystemSupport", argumentParser, system]),
        .executableTarget(name: "RestoredDemo", dependencies: ["RestoredEngine", "RestoredArchive", argumentParser, logging, system], swiftSettings: strictSwift),
        .executableTarget(
            name: "RestoredBench",
            dependencies: [
                "TmuxControl", "TerminalPrograms", "AppDiscovery", "DesktopEntries", "ProcFiles", "MessagePack", "WindowManagerIPC", "ProcessSpawning", "UnitLaunching",
                "RestoredEngine", "RestoredArchive", "RestoredDBus", "SystemSupport",
                // The private buses, logind's mock and the notify socket of the tests.
                "RestoredTestSupport",
                restorationKit, argumentParser, logging, system,
            ],
            swiftSettings: strictSwift
        ),
        // Runs a program under restored's seccomp filter, for the tests.
        .executableTarget(name: "RestoredTestSeccomp", path: "Tests/Tools/SeccompRun"),
        // Connects to a bus within a limit, in a process of its own, for the tests.
        .executableTarget(name: "RestoredTestBusConnect", dependencies: ["RestoredDBus"], path: "Tests/Tools/BusConnect", swiftSettings: strictSwift),
        // Launches a program with the plugin toolkit, in a process of its own, for the tests.
        .executableTarget(name: "RestoredTestLaunch", dependencies: ["PluginToolkit", system], path: "Tests/Tools/Launch", swiftSettings: strictSwift),

        // Tests.
        .target(name: "RestoredTestSupport", dependencies: ["RestoredDBus", "RestoredEngine", "RestoredTesting", "ProcessSpawning", "ProcFiles", "SystemSupport", "X11Client", system], path: "Tests/RestoredTestSupport", swiftSettings: strictSwift),
        tests("RestoredDaemonTests", [
            "LogoutSignals", "WindowManagerIPC", "X11Client", "NeovimControl", "MessagePack", "ProcFiles", "UnitLaunching", "ProcessSpawning", "SystemSupport", "RestoredDaemon", "RestoredEngine",
            "RestoredPluginHosting", "RestoredArchive", "RestoredDBus", "RestoredTestSupport", "TmuxControl", "TerminalPrograms", "PluginToolkit",
            restorationKit, system, logging,
        ]),
        tests("RestoredCtlTests", ["RestoredArchive", "RestoredControl", "RestoredTestSupport", restorationKit, system], exclude: ["Expected"]),
        tests("SystemSupportTests", ["SystemSupport", "ProcessSpawning", "UnixSocket", "RestoredTestSupport", system]),
        tests("UnitLaunchingTests", ["UnitLaunching", "PluginToolkit", "PluginSupport", "ProcFiles", "SystemSupport", "RestoredDBus", "RestoredTestSupport", system]),
        tests("DesktopEntriesTests", ["DesktopEntries", "AppDiscovery", "AppLaunching", "UnitLaunching", "ProcFiles", "RestoredDBus", "RestoredTestSupport"]),
        tests("X11ClientTests", ["X11Client", "RestoredTestSupport"]),
        tests("NeovimControlTests", ["NeovimControl", "ProcFiles", "TmuxControl", "TerminalPrograms", "MessagePack", "RestoredTestSupport", system]),
        tests("TerminalProgramsTests", ["TerminalPrograms"]),
        tests("TmuxControlTests", ["TmuxControl", "TerminalPrograms", "ProcessSpawning", "UnitLaunching", "RestoredTestSupport", "SavedText", system]),
        tests("RestoredPluginHostingTests", ["RestoredPluginHosting", "RestoredHostProtocol", "RestoredEngine", "RestoredArchive", "RestoredTestSupport", "ProcFiles", logging, system]),
        tests("RestoredDBusTests", ["RestoredDBus", "ProcessSpawning", "RestoredTestSupport", logging]),
        tests("RestoredSystemdTests", ["RestoredSystemd", "RestoredTestSupport", "ProcessSpawning", logging]),
        tests("RestoredStateTests", [restorationKit]),
        tests("RestoredArchiveTests", ["RestoredArchive", restorationKit, system]),
        tests("RestoredEngineTests", ["RestoredEngine", "RestoredArchive", "ProcessSpawning", "ProcFiles", restorationKit, pluginHeader, "CDBus", "CSystemd", logging]),
    ] + plugins.map { plugin($0.name, $0.dependencies, path: $0.path) }
)
