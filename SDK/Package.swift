// swift-tools-version:6.0
//
// The restored SDK: what plugin authors depend on.
//
// `RestorationKit` is a *dynamic* library on purpose, holding two modules:
// RestorationKit (the API plugin authors use) and RestoredState (the typed
// values and the keyed-container wire format, shared with the host). Every Swift plugin links
// it as a shared object, so a process that loads several plugins holds exactly
// one copy of every SDK type (a static copy per plugin would give each plugin
// its own metadata, and `as?` casts would fail across images).
// The library carries the soname `libRestorationKit.so`, so a host that loaded
// it first (restored does) serves every plugin with that one copy.
// `CRestoredPlugin` is the C ABI (`restored/plugin.h`) that C plugins and hosts
// use directly. `RestoredRuntimeRecord` (static) puts the record of the Swift
// runtime and SDK a plugin was built against into the plugin itself
// (`restored/runtime_record.h`): every Swift plugin depends on it, so the
// plugin host reads the record before it loads the plugin and refuses one
// built for another runtime.
//
// `PluginToolkit` is the plugin authors' toolkit (SDK/README.md, "The plugin
// toolkit"): launching an app as the built-in plugins do, waits bounded by
// the walk, the user's processes, a socket client and a D-Bus client with
// deadlines. It lives here, with the modules it is built on, so that a
// plugin depends on this package alone: the daemon's own dependencies
// (argument-parser, service-lifecycle) stay in restored's package, which
// uses the modules below from here.
//
// What is promised: the products RestorationKit, CRestoredPlugin,
// RestoredRuntimeRecord and PluginToolkit, and the public API of the modules
// they name (SDK/README.md, "What the SDK promises"). The other products are
// restored's own libraries, shared with its daemon and its built-in plugins
// (products only so that restored's package can use them): they change with
// restored, and a plugin that imports them gets no promise.
import PackageDescription

// Both modules run inside every plugin callback and are single-threaded per
// plugin instance: they are built without the runtime exclusivity checks
// (a fifth of a save in restored-bench codec); the static checks still apply.
let hotPathSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .unsafeFlags(["-enforce-exclusivity=unchecked"]),
]

let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let system = Target.Dependency.product(name: "SystemPackage", package: "swift-system")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")

/// A Swift module of the toolkit or of what it is built on, in `Sources/`.
func module(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, swiftSettings: strictSwift)
}

/// restored's own libraries that the toolkit is built on (no promise: see above).
let sharedLibraries = [
    "CRestoredSupport", "CRestoredProcess", "CDBus", "SystemSupport", "ProcessSpawning", "UnixSocket", "X11Client",
    "RestoredDBus", "ProcFiles", "PluginSupport", "UnitLaunching",
]

let package = Package(
    name: "RestorationKit",
    products: [
        .library(name: "RestorationKit", type: .dynamic, targets: ["RestorationKit", "RestoredState"]),
        .library(name: "CRestoredPlugin", targets: ["CRestoredPlugin"]),
        .library(name: "RestoredRuntimeRecord", type: .static, targets: ["CRestoredRuntimeRecord"]),
        .library(name: "PluginToolkit", targets: ["PluginToolkit"]),
    ] + sharedLibraries.map { .library(name: $0, targets: [$0]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // C: shims (symbols prefixed `c_restored_`) and libdbus.
        .target(name: "CRestoredSupport"),
        .target(name: "CRestoredProcess"),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),

        // The system, under every layer: poll timeouts, program names, the
        // search path, XDG directories, option lists; child processes
        // (one posix_spawn, reaped through a pidfd); unix sockets with
        // deadlines and buffered reads; an X11 client; D-Bus over libdbus.
        module("SystemSupport", ["CRestoredSupport"]),
        module("ProcessSpawning", ["CRestoredProcess", "SystemSupport", system]),
        module("UnixSocket", ["SystemSupport", system]),
        module("X11Client", ["UnixSocket", "SystemSupport", system]),
        module("RestoredDBus", ["SystemSupport", "CDBus", "CRestoredSupport", logging]),
        // What plugins read and do: /proc, their options, launching an app in
        // a unit of its own.
        module("ProcFiles", [system]),
        module("PluginSupport", ["SystemSupport"]),
        module("UnitLaunching", ["RestoredDBus", "ProcessSpawning", "SystemSupport", system]),
        // The plugin authors' toolkit.
        module("PluginToolkit", ["UnitLaunching", "PluginSupport", "ProcFiles", "UnixSocket", "X11Client", "RestoredDBus", "SystemSupport", "RestorationKit", system]),

        .target(name: "CRestoredPlugin"),
        .target(name: "CRestoredRuntimeRecord"),
        .target(
            name: "RestoredState",
            swiftSettings: hotPathSwift
        ),
        .target(
            name: "RestorationKit",
            dependencies: ["CRestoredPlugin", "RestoredState"],
            swiftSettings: hotPathSwift,
            // A soname lets a host that already loaded the SDK runtime satisfy
            // every plugin's dependency on it, wherever the plugin file lives.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-soname=libRestorationKit.so"])]
        ),
    ]
)
