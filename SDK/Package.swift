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
import PackageDescription

// Both modules run inside every plugin callback and are single-threaded per
// plugin instance: they are built without the runtime exclusivity checks
// (a fifth of a save in restored-bench codec); the static checks still apply.
let hotPathSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .unsafeFlags(["-enforce-exclusivity=unchecked"]),
]

let package = Package(
    name: "RestorationKit",
    products: [
        .library(name: "RestorationKit", type: .dynamic, targets: ["RestorationKit", "RestoredState"]),
        .library(name: "CRestoredPlugin", targets: ["CRestoredPlugin"]),
        .library(name: "RestoredRuntimeRecord", type: .static, targets: ["CRestoredRuntimeRecord"]),
    ],
    targets: [
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
