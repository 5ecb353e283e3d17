// swift-tools-version:6.0
//
// The SDK guide's D-Bus example (SDK/README.md, "An app reached over D-Bus:
// the zathura example"), built as a plugin author builds it: against the
// SDK package alone. scripts/test-guide-plugin builds it and runs it through
// restored-plugin-test with a real zathura; restored does not ship it.
import PackageDescription

let package = Package(
    name: "ZathuraPlugin",
    products: [.library(name: "ZathuraPlugin", type: .dynamic, targets: ["ZathuraPlugin"])],
    dependencies: [.package(path: "../../../SDK")],
    targets: [.target(name: "ZathuraPlugin", dependencies: [
        .product(name: "RestorationKit", package: "SDK"),
        .product(name: "RestoredRuntimeRecord", package: "SDK"),
        .product(name: "PluginToolkit", package: "SDK"),
    ])]
)
