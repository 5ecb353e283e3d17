import Foundation
import Logging
import RestoredArchive
import RestoredEngine
import SystemPackage
import Testing

/// Where `swift build` put the plugins: beside the test executable.
enum BuildProducts {
    static let directory: FilePath = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = FilePath(executable).removingLastComponent()
        // The XCTest bundle layout (…/restoredPackageTests.xctest) on some setups.
        while !FileManager.default.fileExists(atPath: directory.appending("libRestorationKit.so").string), !directory.isEmpty, directory != "/" {
            directory = directory.removingLastComponent()
        }
        return directory
    }()

    static func plugin(_ name: String) -> FilePath { directory.appending("lib\(name).so") }
    static var demo: FilePath { directory.appending("restored-demo") }
}

/// A temporary directory, removed with everything in it when the test ends.
final class TemporaryDirectory {
    let path: FilePath

    init() throws {
        var template = Array("/tmp/restored-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno(rawValue: errno) }
        path = FilePath(String(cString: made))
    }

    deinit {
        // Make everything removable again, then remove it.
        _ = try? FileManager.default.subpathsOfDirectory(atPath: path.string).forEach {
            chmod(path.appending($0).string, 0o700)
        }
        try? FileManager.default.removeItem(atPath: path.string)
    }

    func subdirectory(_ name: String, mode: mode_t = 0o755) throws -> FilePath {
        let directory = path.appending(name)
        try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true)
        chmod(directory.string, mode)
        return directory
    }
}

/// Collects log messages, for checking what a user would read.
final class LogCapture: @unchecked Sendable {
    // Unchecked: the lock guards `lines`.
    private let lock = NSLock()
    private var lines: [String] = []

    var messages: [String] { lock.withLock { lines } }

    func logger(level: Logger.Level = .debug) -> Logger {
        var logger = Logger(label: "test") { _ in CaptureHandler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    private struct CaptureHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append("\(event.level): \(event.message)")
        }
    }
}

/// A plugin directory holding links to built plugins, loaded once.
struct PluginFixture {
    let directory: TemporaryDirectory
    let catalog: PluginCatalog
    let log: LogCapture

    init(_ names: [String]) throws {
        directory = try TemporaryDirectory()
        let plugins = try directory.subdirectory("plugins")
        for name in names {
            try FileManager.default.createSymbolicLink(
                atPath: plugins.appending("lib\(name).so").string, withDestinationPath: BuildProducts.plugin(name).string
            )
        }
        log = LogCapture()
        catalog = PluginLoader(directories: [plugins]).load(logger: log.logger())
    }

    func plugin(_ appID: String) throws -> LoadedPlugin {
        try #require(catalog.plugin(for: try AppID(appID)), "plugin for \(appID) not loaded: \(catalog.refusals)")
    }
}

/// A store and an engine over a temporary state directory.
struct EngineFixture {
    let directory: TemporaryDirectory
    let store: ArchiveStore
    let engine: RestorationEngine
    let log = LogCapture()

    init(configuration: EngineConfiguration = EngineConfiguration()) throws {
        directory = try TemporaryDirectory()
        store = ArchiveStore(directory: directory.path.appending("state/restored"))
        engine = RestorationEngine(store: store, configuration: configuration, logger: log.logger())
    }
}
