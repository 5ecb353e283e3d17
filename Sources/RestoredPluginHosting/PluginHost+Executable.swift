import Glibc
public import SystemPackage

extension PluginHost.Configuration {
    /// The `restored-plugin-host` that goes with the running program:
    /// `PREFIX/libexec/restored/restored-plugin-host` for `PREFIX/bin/restored`
    /// (or `restored-ctl`), else the one beside the program, as in a build
    /// directory.
    public static func installedExecutable() -> FilePath {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = length > 0
            ? FilePath(String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            : FilePath(CommandLine.arguments[0])
        let directory = executable.removingLastComponent()
        let installed = directory.removingLastComponent().appending("libexec/restored/restored-plugin-host")
        return access(installed.string, X_OK) == 0 ? installed : directory.appending("restored-plugin-host")
    }
}
