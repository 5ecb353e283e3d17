import Foundation
import Logging
import RestoredEngine
import SystemPackage

/// A plugin built with the package, loaded with dlopen as restored loads it.
enum BuiltPlugin {
    /// Loads `lib<name>.so` from `directory` (default: beside this program).
    static func load(_ name: String, directory: String?, logger: Logger) throws -> LoadedPlugin {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let file = (directory.map { FilePath($0) } ?? FilePath(executable).removingLastComponent()).appending("lib\(name).so")
        let loader = PluginLoader(directories: [])
        loader.loadSDKRuntime(logger: logger)
        switch loader.loadPlugin(at: file) {
        case .success(let plugin): return plugin
        case .failure(let refusal): throw BenchmarkFailure("\(refusal); build it with swift build -c release")
        }
    }
}
