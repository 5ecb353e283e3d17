// swift-tools-version:6.0
//
// restored: iOS-style state preservation and restoration for the Linux desktop.
//
// Where things are (docs/repository.md, "The repository map", draws the same):
// - SDK/ (a package of its own): RestorationKit, the plugin authors' SDK;
//   RestoredState, the typed values and wire format shared by the host and
//   every Swift plugin; CRestoredPlugin, the C ABI header `restored/plugin.h`;
//   PluginToolkit, the authors' toolkit, and the system's layer it is built
//   on, which restored uses from there (system helpers, child processes,
//   unix sockets, X11, D-Bus, /proc, launching apps in units).
// - Sources/: restored itself: the daemon, restored-ctl, the plugin hosts,
//   the engine and archives, systemd, the logout signals, window managers'
//   IPC, and what the tests and restored-plugin-test share.
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
/// A module of the SDK package: the plugin toolkit, and the system's layer
/// it is built on (SystemSupport, ProcessSpawning, UnixSocket, X11Client,
/// RestoredDBus, ProcFiles, PluginSupport, UnitLaunching and the C shims).
func sdk(_ name: String) -> Target.Dependency {
    .product(name: name, package: "SDK")
}

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
    ("TmuxPlugin", [sdk("SystemSupport"), "TmuxControl", "TerminalPrograms", "NeovimControl", "NeovimState", sdk("PluginToolkit"), "MessagePack", "SavedText", restorationKit, runtimeRecord, system], "Plugins/TmuxPlugin"),
    ("MediaPlayersPlugin", ["MediaPlayers", "AppLaunching", "DesktopEntries", "SavedText", sdk("PluginToolkit"), sdk("ProcFiles"), sdk("SystemSupport"), restorationKit, runtimeRecord], "Plugins/MediaPlayersPlugin"),
    ("SessionPlugin", ["MediaPlayers", sdk("SystemSupport"), "WindowManagerIPC", "NeovimControl", "NeovimState", "MessagePack", "AppDiscovery", "AppLaunching", "DesktopEntries", sdk("PluginSupport"), sdk("PluginToolkit"), sdk("ProcFiles"), "TerminalPrograms", sdk("X11Client"), sdk("UnitLaunching"), sdk("RestoredDBus"), "SavedText", restorationKit, runtimeRecord], "Plugins/SessionPlugin"),
    // Examples for plugin authors (SDK/README.md).
    ("ExampleHelloPlugin", [restorationKit, runtimeRecord], "Plugins/ExampleHelloPlugin"),
    ("ExampleNotesPlugin", [restorationKit, runtimeRecord], "Plugins/ExampleNotesPlugin"),
    ("ExampleCounterPlugin", [pluginHeader], "Plugins/ExampleCounterPlugin"),
    ("ExampleMpvPlugin", [sdk("PluginToolkit"), restorationKit, runtimeRecord, system], "Plugins/ExampleMpvPlugin"),
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
        .target(name: "CRestoredHostSupport"),
        // An XSMP client over libSM/libICE (Debian's libsm-dev).
        .target(name: "CRestoredSessionClient", linkerSettings: [.linkedLibrary("SM"), .linkedLibrary("ICE")]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        // The system's layer (SystemSupport, ProcessSpawning, UnixSocket,
        // X11Client, RestoredDBus and their C shims) is the SDK's, beside the
        // plugin toolkit built on it: the targets here name its products.
        // What restored's tests and restored-plugin-test both run: a private bus, a cgroup's processes.
        module("RestoredTesting", [sdk("ProcessSpawning"), sdk("SystemSupport"), system]),
        module("WindowManagerIPC", [sdk("UnixSocket"), sdk("X11Client"), sdk("SystemSupport"), system]),

        // The engine and its archives.
        module("RestoredArchive", [sdk("CRestoredSupport"), sdk("SystemSupport"), restorationKit, system]),
        module("RestoredEngine", ["RestoredArchive", sdk("SystemSupport"), "CRestoredHostSupport", restorationKit, pluginHeader, runtimeRecord, logging, system], settings: hotPathSwift),

        // Plugin hosts: what restored and its helpers say to each other, and
        // restored's side of the helper processes and their faults.
        module("RestoredHostProtocol", [sdk("SystemSupport"), "RestoredEngine", "RestoredArchive", restorationKit]),
        module("RestoredPluginHosting", [sdk("SystemSupport"), sdk("ProcessSpawning"), "RestoredHostProtocol", "RestoredEngine", "RestoredArchive", logging, system]),

        // The daemon and what it listens to.
        module("RestoredSystemd", ["CSystemd", logging]),
        module("LogoutSignals", ["CRestoredSessionClient", sdk("RestoredDBus"), "WindowManagerIPC", sdk("UnixSocket"), sdk("X11Client"), sdk("SystemSupport"), logging, system]),
        module("RestoredDaemon", [
            sdk("SystemSupport"), "LogoutSignals", sdk("RestoredDBus"), "RestoredEngine", "RestoredArchive", "RestoredSystemd",
            "RestoredHostProtocol", "RestoredPluginHosting", sdk("ProcessSpawning"), sdk("UnixSocket"), sdk("X11Client"), "WindowManagerIPC", logging, serviceLifecycle, system,
        ]),
        // restored-ctl's model of the admin API and the archives.
        module("RestoredControl", [
            sdk("RestoredDBus"), "RestoredArchive", "RestoredEngine", "RestoredHostProtocol", "RestoredPluginHosting", sdk("SystemSupport"),
            restorationKit, logging, system,
        ]),

        // The libraries only plugins use (Plugins/Libraries/).
        pluginLibrary("SavedText"),
        pluginLibrary("MessagePack"),
        pluginLibrary("DesktopEntries", [sdk("SystemSupport")]),
        pluginLibrary("AppDiscovery", ["DesktopEntries", sdk("ProcFiles"), sdk("UnitLaunching"), sdk("SystemSupport")]),
        pluginLibrary("MediaPlayers", ["DesktopEntries", "AppLaunching", "SavedText", sdk("PluginToolkit"), sdk("ProcFiles"), sdk("SystemSupport")]),
        pluginLibrary("AppLaunching", ["DesktopEntries", sdk("UnitLaunching"), sdk("RestoredDBus"), "SavedText", sdk("SystemSupport"), system]),
        pluginLibrary("NeovimControl", ["MessagePack", sdk("ProcFiles"), sdk("UnixSocket"), sdk("SystemSupport"), system]),
        pluginLibrary("NeovimState", ["NeovimControl", restorationKit]),
        pluginLibrary("TerminalPrograms", [sdk("ProcFiles"), "SavedText", sdk("SystemSupport"), system]),
        pluginLibrary("TmuxControl", [sdk("ProcessSpawning"), sdk("ProcFiles"), "SavedText", sdk("SystemSupport"), system]),

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
            dependencies: ["RestoredEngine", "RestoredArchive", "RestoredHostProtocol", "RestoredSystemd", "CRestoredHostSupport", sdk("SystemSupport"), logging],
            swiftSettings: strictSwift,
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../../lib/restored"])]
        ),
        // Runs one plugin through a save, its app's end and a restore, on a
        // private bus, optionally under the installed unit's sandbox.
        installedExecutable("RestoredPluginTest", ["RestoredDaemon", "RestoredEngine", sdk("RestoredDBus"), "RestoredTesting", sdk("ProcFiles"), sdk("ProcessSpawning"), sdk("SystemSupport"), argumentParser, system]),
        .executableTarget(name: "RestoredDemo", dependencies: ["RestoredEngine", "RestoredArchive", argumentParser, logging, system], swiftSettings: strictSwift),
        .executableTarget(
            name: "RestoredBench",
            dependencies: [
                "TmuxControl", "TerminalPrograms", "AppDiscovery", "DesktopEntries", sdk("ProcFiles"), "MessagePack", "WindowManagerIPC", sdk("ProcessSpawning"), sdk("UnitLaunching"),
                "RestoredEngine", "RestoredArchive", sdk("RestoredDBus"), sdk("SystemSupport"),
                // The private buses, logind's mock and the notify socket of the tests.
                "RestoredTestSupport",
                restorationKit, argumentParser, logging, system,
            ],
            swiftSettings: strictSwift
        ),
        // Runs a program under restored's seccomp filter, for the tests.
        .executableTarget(name: "RestoredTestSeccomp", path: "Tests/Tools/SeccompRun"),
        // Connects to a bus within a limit, in a process of its own, for the tests.
        .executableTarget(name: "RestoredTestBusConnect", dependencies: [sdk("RestoredDBus")], path: "Tests/Tools/BusConnect", swiftSettings: strictSwift),
        // Launches a program with the plugin toolkit, in a process of its own, for the tests.
        .executableTarget(name: "RestoredTestLaunch", dependencies: [sdk("PluginToolkit"), system], path: "Tests/Tools/Launch", swiftSettings: strictSwift),

        // Tests.
        .target(name: "RestoredTestSupport", dependencies: [sdk("RestoredDBus"), "RestoredEngine", "RestoredTesting", sdk("ProcessSpawning"), sdk("ProcFiles"), sdk("SystemSupport"), sdk("X11Client"), system], path: "Tests/RestoredTestSupport", swiftSettings: strictSwift),
        tests("RestoredDaemonTests", [
            "MediaPlayers", "LogoutSignals", "WindowManagerIPC", sdk("X11Client"), "NeovimControl", "MessagePack", sdk("ProcFiles"), sdk("UnitLaunching"), sdk("ProcessSpawning"), sdk("SystemSupport"), "RestoredDaemon", "RestoredEngine",
            "RestoredPluginHosting", "RestoredArchive", sdk("RestoredDBus"), "RestoredTestSupport", "TmuxControl", "TerminalPrograms", sdk("PluginToolkit"),
            restorationKit, system, logging,
        ]),
        tests("RestoredCtlTests", ["RestoredArchive", "RestoredControl", "RestoredTestSupport", restorationKit, system], exclude: ["Expected"]),
        tests("SystemSupportTests", [sdk("SystemSupport"), sdk("ProcessSpawning"), sdk("UnixSocket"), "RestoredTestSupport", system]),
        tests("UnitLaunchingTests", [sdk("UnitLaunching"), sdk("PluginToolkit"), sdk("PluginSupport"), sdk("ProcFiles"), sdk("SystemSupport"), sdk("RestoredDBus"), "RestoredTestSupport", system]),
        tests("DesktopEntriesTests", ["MediaPlayers", "DesktopEntries", "AppDiscovery", "AppLaunching", sdk("UnitLaunching"), sdk("ProcFiles"), sdk("RestoredDBus"), "RestoredTestSupport"]),
        tests("X11ClientTests", [sdk("X11Client"), "RestoredTestSupport"]),
        tests("NeovimControlTests", ["NeovimControl", sdk("ProcFiles"), "TmuxControl", "TerminalPrograms", "MessagePack", "RestoredTestSupport", system]),
        tests("TerminalProgramsTests", ["TerminalPrograms"]),
        tests("TmuxControlTests", ["TmuxControl", "TerminalPrograms", sdk("ProcessSpawning"), sdk("UnitLaunching"), "RestoredTestSupport", "SavedText", system]),
        tests("RestoredPluginHostingTests", ["RestoredPluginHosting", "RestoredHostProtocol", "RestoredEngine", "RestoredArchive", "RestoredTestSupport", sdk("ProcFiles"), logging, system]),
        tests("RestoredDBusTests", [sdk("RestoredDBus"), sdk("ProcessSpawning"), "RestoredTestSupport", logging]),
        tests("RestoredSystemdTests", ["RestoredSystemd", "RestoredTestSupport", sdk("ProcessSpawning"), logging]),
        tests("RestoredStateTests", [restorationKit]),
        tests("RestoredArchiveTests", ["RestoredArchive", restorationKit, system]),
        tests("RestoredEngineTests", ["RestoredEngine", "RestoredArchive", sdk("ProcessSpawning"), sdk("ProcFiles"), restorationKit, pluginHeader, sdk("CDBus"), "CSystemd", logging]),
    ] + plugins.map { plugin($0.name, $0.dependencies, path: $0.path) }
)
