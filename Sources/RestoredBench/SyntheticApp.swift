import Foundation
import Logging
import RestoredArchive
import RestoredState
import RestoredEngine
import SystemPackage

/// The synthetic benchmark plugin, loaded from the build directory.
struct SyntheticApp {
    let plugin: LoadedPlugin
    let logger: Logger

    init(pluginDirectory: String?, logger: Logger) throws {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let directory = pluginDirectory.map { FilePath($0) } ?? FilePath(executable).removingLastComponent()
        let file = directory.appending("libSyntheticPlugin.so")
        let loader = PluginLoader(directories: [])
        loader.loadSDKRuntime(logger: logger)
        switch loader.loadPlugin(at: file) {
        case .success(let plugin): self.plugin = plugin
        case .failure(let refusal): throw BenchmarkFailure("\(refusal); build it with swift build -c release")
        }
        self.logger = logger
    }

    /// A fresh instance; `empty` ones start without state, to be restored.
    func session(objects: Int, empty: Bool = false) throws -> InProcessPluginSession {
        try plugin.makeSession(options: ["objects": "\(objects)", "empty": empty ? "true" : "false"], logger: logger)
    }

    /// A fresh instance with its objects listed (outside any timing).
    func tree(objects: Int, empty: Bool = false) throws -> SyntheticTree {
        try SyntheticTree(session: session(objects: objects, empty: empty))
    }
}

/// A synthetic app instance whose objects were listed once, so that only the
/// coder is measured: each object encoded into its own container through the
/// C ABI and packed into an archive, or the archive unpacked and each object
/// decoded from its container.
final class SyntheticTree {
    let session: InProcessPluginSession
    private(set) var handles: [ObjectHandle] = []
    private(set) var paths: [ObjectPath] = []

    init(session: InProcessPluginSession) throws {
        self.session = session
        session.begin(.preserving(.request))
        var queue: [(ObjectHandle?, ObjectPath)] = [(nil, ObjectPath())]
        var index = 0
        while index < queue.count {
            let (parent, path) = queue[index]
            index += 1
            for child in try session.listObjects(under: parent) {
                let childPath = path.appending(child.identifier)
                handles.append(child.handle)
                paths.append(childPath)
                queue.append((child.handle, childPath))
            }
        }
    }

    deinit {
        session.endWalk()
    }

    func encode() throws -> [UInt8] {
        var objects: [ArchivedObject] = []
        objects.reserveCapacity(handles.count)
        // One coder for every object, emptied before each, as the
        // preservation walk does.
        let coder = EncodingCoder(budget: 1 << 20)
        for (handle, path) in zip(handles, paths) {
            coder.reset()
            try session.encode(handle, into: coder)
            objects.append(ArchivedObject(path: path, className: "SyntheticNode", state: coder.bytesCopy))
        }
        let archive = Archive(appID: session.appID, appVersion: session.appVersion, objects: objects)
        return ArchiveCodec.encode(archive)
    }

    func decode(_ bytes: [UInt8]) throws {
        let archive = try ArchiveCodec.decode(bytes)
        guard archive.objects.count == handles.count else { throw BenchmarkFailure("the archive lost objects") }
        for (handle, object) in zip(handles, archive.objects) {
            let coder = DecodingCoder(state: object.state)
            try coder.validate()
            try session.decode(handle, from: coder)
        }
    }

    /// Fails unless every object decoded exactly what was encoded.
    func verify() throws {
        try session.didDecodeRestorableState(DecodingCoder(state: []))
    }
}
