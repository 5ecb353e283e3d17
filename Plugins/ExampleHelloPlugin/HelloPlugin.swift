import FoundationEssentials
import RestorationKit

/// Hello's one window: the text it shows.
final class Editor: RestorableObject {
    var restorationIdentifier: String? = "Editor"
    var restorationClass: (any RestorationClass.Type)?
    var text = ""

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(text, forKey: "text")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        text = try coder.decode(String.self, forKey: "text") ?? ""
    }
}

/// The restoration class of Hello, an app that keeps what it shows in a
/// file while it runs: the option `live-file`, by default
/// `$XDG_RUNTIME_DIR/hello/text`. The plugin reads the live app at each
/// save and hands the text back at a restore.
final class HelloPlugin: RestorationPlugin {
    static let appID = "org.example.Hello"
    static let appVersion = "1.0"
    let editor = Editor()
    let context: PluginContext
    let liveFile: URL

    init(context: PluginContext) throws {
        self.context = context
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? FileManager.default.temporaryDirectory.path
        liveFile = URL(fileURLWithPath: context.options["live-file"] ?? runtime + "/hello/text")
        // The window exists when the app starts: restoration finds it by path (R8 step 3).
        context.registerObject(editor, at: RestorationPath("Editor"))
    }

    var rootObjects: [any RestorableObject] { [editor] }

    /// R6, asked at every save: read the live app now.
    func saveDecision(coder: StateCoder) throws -> SaveDecision {
        guard FileManager.default.fileExists(atPath: liveFile.path) else {
            // Not running. In a session that goes on, the user closed it: the
            // last archive is stale. While the session ends, it may be gone
            // before restored asks: keep what restored has.
            return context.saveOccasion?.endsSession == true ? .keepLastArchive : .decline
        }
        guard let text = try? String(contentsOf: liveFile, encoding: .utf8) else {
            // There, but not readable now: nothing new to say.
            return .keepLastArchive
        }
        editor.text = text
        return .save
    }

    /// R9, the end of a restore: hand the text back to the app.
    func restorationDidFinish() {
        do {
            try FileManager.default.createDirectory(at: liveFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try editor.text.write(to: liveFile, atomically: true, encoding: .utf8)
        } catch {
            context.log("could not hand the text back to Hello at \(liveFile.path): \(error)", level: .warning)
        }
    }
}

@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer { PluginExport.descriptor(for: HelloPlugin.self) }
