// swift-tools-version:6.0
//
// restored: iOS-style state preservation and restoration for the Linux desktop.
//
// Layout (one concern per module):
// - SDK/ (a package of its own): RestorationKit, the plugin authors' SDK, and
//   CRestoredPlugin, the C ABI header `restored/plugin.h`.
// - CRestoredSupport: C shims (CRC-32C), symbols prefixed `c_restored_`.
// - CDBus, CSystemd: the system libraries libdbus-1 and libsystemd.
// - CRestoredSessionClient: an XSMP client over libSM/libICE, symbols
//   prefixed `c_restored_sm_`.
// - RestoredState (in SDK/, inside libRestorationKit.so): the typed values,
//   object paths and the keyed-container wire format, one copy shared by
//   the host and every Swift plugin.
// - RestoredArchive: app ids, the archive file format and its store.
// - RestoredEngine: plugin loading and the preservation/restoration walks.
// - Plugins/: example plugins (Swift and C) built with the package.
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

let package = Package(
    name: "restored",
    products: [
        .executable(name: "restored", targets: ["Restored"]),
        .executable(name: "restored-ctl", targets: ["RestoredCtl"]),
        .executable(name: "restored-plugin-host", targets: ["RestoredPluginHost"]),
        .executable(name: "restored-demo", targets: ["RestoredDemo"]),
        .executable(name: "restored-bench", targets: ["RestoredBench"]),
        .executable(name: "restored-test-seccomp", targets: ["RestoredTestSeccomp"]),
        .library(name: "ExampleNotesPlugin", type: .dynamic, targets: ["ExampleNotesPlugin"]),
        .library(name: "ExampleHelloPlugin", type: .dynamic, targets: ["ExampleHelloPlugin"]),
        .library(name: "ExampleCounterPlugin", type: .dynamic, targets: ["ExampleCounterPlugin"]),
        .library(name: "TmuxPlugin", type: .dynamic, targets: ["TmuxPlugin"]),
        .library(name: "SessionPlugin", type: .dynamic, targets: ["SessionPlugin"]),
        .library(name: "SyntheticPlugin", type: .dynamic, targets: ["SyntheticPlugin"]),
        .library(name: "TestScenarioPlugin", type: .dynamic, targets: ["TestScenarioPlugin"]),
        .library(name: "TestPluginWrongABI", type: .dynamic, targets: ["TestPluginWrongABI"]),
        .library(name: "TestPluginInvalidAppID", type: .dynamic, targets: ["TestPluginInvalidAppID"]),
        .library(name: "TestPluginNoSymbol", type: .dynamic, targets: ["TestPluginNoSymbol"]),
        .library(name: "TestPluginCrashOnLoad", type: .dynamic, targets: ["TestPluginCrashOnLoad"]),
        .library(name: "TestPluginMissingCallback", type: .dynamic, targets: ["TestPluginMissingCallback"]),
        .library(name: "TestFaultyPlugin", type: .dynamic, targets: ["TestFaultyPlugin"]),
        .library(name: "TestPluginMistakes", type: .dynamic, targets: ["TestPluginMistakes"]),
    ],
    dependencies: [
        .package(path: "SDK"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C shims and system libraries.
        .target(name: "CRestoredSupport"),
        .target(name: "CRestoredHostSupport"),
        .target(name: "CRestoredLaunchSupport"),
        // An XSMP client over libSM/libICE (Debian's libsm-dev).
        .target(
            name: "CRestoredSessionClient",
            linkerSettings: [.linkedLibrary("SM"), .linkedLibrary("ICE")]
        ),
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),

        // Core modules.
        .target(
            name: "RestoredArchive",
            dependencies: [
                "CRestoredSupport",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "RestoredEngine",
            dependencies: [
                "RestoredArchive",
                "CRestoredHostSupport",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "CRestoredPlugin", package: "SDK"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: hotPathSwift
        ),

        // What restored and its plugin hosts say to each other.
        .target(
            name: "RestoredHostProtocol",
            dependencies: [
                "SystemSupport",
                "RestoredEngine",
                "RestoredArchive",
                .product(name: "RestorationKit", package: "SDK"),
            ],
            swiftSettings: strictSwift
        ),
        // restored's side of the plugin hosts: helper processes and their faults.
        .target(
            name: "RestoredPluginHosting",
            dependencies: [
                "SystemSupport",
                "RestoredHostProtocol",
                "RestoredLaunch",
                "RestoredEngine",
                "RestoredArchive",
                "CRestoredHostSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "RestoredLaunch",
            dependencies: [
                "RestoredDBus",
                "SystemSupport",
                "CRestoredLaunchSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .target(name: "MessagePack", swiftSettings: strictSwift),
        .target(name: "SavedText", swiftSettings: strictSwift),
        .target(
            name: "X11Client",
            dependencies: ["UnixSocket", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "UnixSocket",
            dependencies: ["SystemSupport", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift
        ),
        .target(name: "DesktopEntries", swiftSettings: strictSwift),
        // The small helpers over the system every layer shares: poll
        // timeouts from durations, program names, the fallback PATH.
        .target(name: "SystemSupport", swiftSettings: strictSwift),
        .target(
            name: "AppLaunching",
            dependencies: ["DesktopEntries", "RestoredLaunch", "RestoredDBus", "SavedText", "SystemSupport", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "PluginSupport",
            dependencies: ["SystemSupport"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppDiscovery",
            dependencies: ["DesktopEntries", "ProcFiles", "RestoredLaunch", "SystemSupport"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "ProcFiles",
            dependencies: [.product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "NeovimControl",
            dependencies: ["MessagePack", "ProcFiles", "UnixSocket", "SystemSupport", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "TmuxControl",
            dependencies: ["RestoredLaunch", "ProcFiles", "SavedText", "SystemSupport", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "RestoredDBus",
            dependencies: [
                "SystemSupport",
                "CDBus",
                "CRestoredSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "LogoutSignals",
            dependencies: [
                "CRestoredSessionClient",
                "RestoredDBus",
                "UnixSocket",
                "X11Client",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "RestoredDaemon",
            dependencies: [
                "LogoutSignals",
                "RestoredDBus",
                "RestoredEngine",
                "RestoredArchive",
                "RestoredSystemd",
                "RestoredHostProtocol",
                "RestoredPluginHosting",
                "UnixSocket",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        // restored-ctl's model of the admin API and the archives.
        .target(
            name: "RestoredControl",
            dependencies: [
                "RestoredDBus",
                "RestoredArchive",
                "RestoredEngine",
                "RestoredHostProtocol",
                "RestoredPluginHosting",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "RestoredSystemd",
            dependencies: [
                "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),

        // Executables.
        .executableTarget(
            name: "Restored",
            dependencies: [
                "RestoredDaemon",
                "RestoredPluginHosting",
                "RestoredEngine",
                "RestoredArchive",
                "RestoredSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift,
            // Installed in PREFIX/bin, the SDK runtime in PREFIX/lib/restored.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/restored"])]
        ),
        // One plugin's helper process. Installed in PREFIX/libexec/restored,
        // it finds the SDK runtime in PREFIX/lib/restored through its RUNPATH
        // (and beside itself in the build directory).
        .executableTarget(
            name: "RestoredPluginHost",
            dependencies: [
                "RestoredEngine",
                "RestoredArchive",
                "RestoredHostProtocol",
                "RestoredSystemd",
                "CRestoredHostSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift,
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../../lib/restored"])]
        ),
        .executableTarget(
            name: "RestoredCtl",
            dependencies: [
                "RestoredControl",
                "RestoredArchive",
                "RestoredEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift,
            // Installed in PREFIX/bin, the SDK runtime in PREFIX/lib/restored.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/restored"])]
        ),
        .executableTarget(
            name: "RestoredDemo",
            dependencies: [
                "RestoredEngine",
                "RestoredArchive",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "RestoredBench",
            dependencies: [
                "TmuxControl",
                "AppDiscovery",
                "DesktopEntries",
                "RestoredLaunch",
                "RestoredEngine",
                "RestoredArchive",
                "RestoredDBus",
                // The private buses, logind's mock and the notify socket of the tests.
                "RestoredTestSupport",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        // The synthetic app the benchmarks preserve and restore.
        .target(
            name: "SyntheticPlugin",
            dependencies: [.product(name: "RestorationKit", package: "SDK")],
            path: "Benchmarks/SyntheticPlugin",
            swiftSettings: strictSwift
        ),

        // Plugins built by this package: examples for authors.
        .target(
            name: "ExampleHelloPlugin",
            dependencies: [.product(name: "RestorationKit", package: "SDK")],
            path: "Plugins/ExampleHelloPlugin",
            swiftSettings: strictSwift
        ),
        .target(
            name: "ExampleNotesPlugin",
            dependencies: [.product(name: "RestorationKit", package: "SDK")],
            path: "Plugins/ExampleNotesPlugin",
            swiftSettings: strictSwift
        ),
        .target(
            name: "TmuxPlugin",
            dependencies: [
                "TmuxControl",
                "NeovimControl",
                "PluginSupport",
                "MessagePack",
                "RestoredLaunch",
                "RestoredDBus",
                "SavedText",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Plugins/TmuxPlugin",
            swiftSettings: strictSwift
        ),
        .target(
            name: "SessionPlugin",
            dependencies: [
                "AppDiscovery",
                "AppLaunching",
                "DesktopEntries",
                "PluginSupport",
                "ProcFiles",
                "TmuxControl",
                "X11Client",
                "RestoredLaunch",
                "RestoredDBus",
                "SavedText",
                .product(name: "RestorationKit", package: "SDK"),
            ],
            path: "Plugins/SessionPlugin",
            swiftSettings: strictSwift
        ),
        .target(
            name: "ExampleCounterPlugin",
            dependencies: [.product(name: "CRestoredPlugin", package: "SDK")],
            path: "Plugins/ExampleCounterPlugin"
        ),

        // Plugins that exist for the tests.
        .target(
            name: "TestScenarioPlugin",
            dependencies: [.product(name: "RestorationKit", package: "SDK")],
            path: "Tests/Plugins/TestScenarioPlugin",
            swiftSettings: strictSwift
        ),
        .target(
            name: "TestPluginWrongABI",
            dependencies: [.product(name: "CRestoredPlugin", package: "SDK")],
            path: "Tests/Plugins/TestPluginWrongABI"
        ),
        .target(
            name: "TestPluginInvalidAppID",
            dependencies: [.product(name: "CRestoredPlugin", package: "SDK")],
            path: "Tests/Plugins/TestPluginInvalidAppID"
        ),
        .target(
            name: "TestPluginNoSymbol",
            path: "Tests/Plugins/TestPluginNoSymbol"
        ),
        .executableTarget(
            name: "RestoredTestSeccomp",
            path: "Tests/Tools/SeccompRun"
        ),
        .target(
            name: "TestPluginCrashOnLoad",
            path: "Tests/Plugins/TestPluginCrashOnLoad"
        ),
        .target(
            name: "TestPluginMissingCallback",
            dependencies: [.product(name: "CRestoredPlugin", package: "SDK")],
            path: "Tests/Plugins/TestPluginMissingCallback"
        ),

        .target(
            name: "TestFaultyPlugin",
            dependencies: [.product(name: "CRestoredPlugin", package: "SDK")],
            path: "Tests/Plugins/TestFaultyPlugin"
        ),
        .target(
            name: "TestPluginMistakes",
            dependencies: [.product(name: "CRestoredPlugin", package: "SDK")],
            path: "Tests/Plugins/TestPluginMistakes"
        ),

        // Tests.
        .target(
            name: "RestoredTestSupport",
            dependencies: ["RestoredDBus", "X11Client"],
            path: "Tests/RestoredTestSupport",
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredDaemonTests",
            dependencies: [
                "LogoutSignals",
                "X11Client",
                "NeovimControl",
                "RestoredLaunch",
                "RestoredDaemon",
                "RestoredEngine",
                "RestoredPluginHosting",
                "RestoredArchive",
                "RestoredDBus",
                "RestoredTestSupport",
                "TmuxControl",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredCtlTests",
            dependencies: [
                "RestoredArchive",
                "RestoredControl",
                "RestoredTestSupport",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["Expected"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredLaunchTests",
            dependencies: [
                "RestoredLaunch",
                "PluginSupport",
                "SystemSupport",
                "RestoredDBus",
                "RestoredTestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "DesktopEntriesTests",
            dependencies: ["DesktopEntries", "AppDiscovery", "AppLaunching", "RestoredLaunch", "RestoredDBus", "RestoredTestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "X11ClientTests",
            dependencies: ["X11Client", "RestoredTestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "NeovimControlTests",
            dependencies: [
                "NeovimControl",
                "ProcFiles",
                "TmuxControl",
                "MessagePack",
                "RestoredTestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "TmuxControlTests",
            dependencies: [
                "TmuxControl",
                "RestoredLaunch",
                "RestoredTestSupport",
                "SavedText",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredPluginHostingTests",
            dependencies: [
                "RestoredPluginHosting",
                "RestoredHostProtocol",
                "RestoredEngine",
                "RestoredArchive",
                "RestoredTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredDBusTests",
            dependencies: [
                "RestoredDBus",
                "RestoredTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredSystemdTests",
            dependencies: [
                "RestoredSystemd",
                "RestoredTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredStateTests",
            dependencies: [.product(name: "RestorationKit", package: "SDK")],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredArchiveTests",
            dependencies: [
                "RestoredArchive",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RestoredEngineTests",
            dependencies: [
                "RestoredEngine",
                "RestoredArchive",
                .product(name: "RestorationKit", package: "SDK"),
                .product(name: "CRestoredPlugin", package: "SDK"),
                "CDBus",
                "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
    ]
)
