import Foundation

/// Where `swift build` put the executables and plugins: beside the test executable.
public enum BuildProducts {
    /// The build directory.
    public static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("libRestorationKit.so").path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.path
    }()

    /// A built executable.
    public static func executable(_ name: String) -> String { directory + "/" + name }

    /// A built plugin, `lib<name>.so`.
    public static func plugin(_ name: String) -> String { directory + "/lib\(name).so" }
}
