import Foundation
import Glibc
import SystemPackage
import SystemSupport

/// The run's temporary directory (mode 0700, made with mkdtemp(3) under
/// `$TMPDIR` or `/tmp`): `plugins/` with the one plugin file, `state/`
/// (restored's archives), the bus's configuration and socket, and the logs.
struct RunDirectory: Sendable {
    /// The directory's absolute path.
    let path: String

    /// Makes a fresh directory with its `plugins/` and `state/`.
    static func make(environment: [String: String]) throws(PluginTestError) -> RunDirectory {
        var base = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array("\(base)/restored-plugin-test.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .system(call: "mkdtemp in \(base)", Errno(rawValue: errno))
        }
        let directory = RunDirectory(path: String(cString: made))
        for name in ["plugins", "state"] where mkdir(directory.file(name), 0o700) != 0 {
            let failure = Errno(rawValue: errno)
            directory.remove()
            throw .system(call: "mkdir \(directory.file(name))", failure)
        }
        return directory
    }

    /// The path of `name` in the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// Where the plugin's copy goes.
    var plugins: String { file("plugins") }
    /// restored's state directory.
    var state: String { file("state") }
    /// The log of the `number`th start of restored.
    func daemonLog(_ number: Int) -> String { file("restored-\(number).log") }

    /// Copies the file `plugin` into `plugins/` as `name`, mode 0644: what
    /// installing it does. (A copy, not a link: restored checks the file
    /// it loads and every directory on its way, and the author's build
    /// directory is no place a user installs from.)
    func install(plugin: String, as name: String) throws(PluginTestError) -> String {
        let target = plugins + "/" + name
        do {
            try FileManager.default.copyItem(atPath: plugin, toPath: target)
        } catch {
            throw .unusablePluginFile(path: plugin, reason: "cannot copy it into \(plugins) (\(error.localizedDescription))")
        }
        guard chmod(target, 0o644) == 0 else { throw .system(call: "chmod \(target)", Errno(rawValue: errno)) }
        return target
    }

    /// A new file of the run, mode 0600.
    static func createFile(_ path: String) throws(PluginTestError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: .ownerReadWrite)
        } catch {
            throw .system(call: "open \(path)", (error as? Errno) ?? Errno(rawValue: EIO))
        }
    }

    /// The last `count` lines of the file `path`, or nil when it is empty or unreadable.
    static func tail(of path: String, lines count: Int) -> [String]? {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        return lines.suffix(count).map(String.init)
    }

    /// Removes the directory and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
