import FoundationEssentials
import PluginToolkit
import RestorationKit

final class ZathuraPlugin: RestorationPlugin {
    static let appID = "org.pwmt.Zathura"
    static let appVersion = "1"
    static let displayName = "zathura"
    static var traits: PluginTraits { [.needsGraphicalSession] }
    static var restorationClasses: [any RestorationClass.Type] { [DocumentRestoration.self] }
    static let namePrefix = "org.pwmt.zathura.PID-"

    let context: PluginContext
    let documents = DocumentsObject()
    let launcher: AppLauncher

    init(context: PluginContext) throws {
        self.context = context
        launcher = AppLauncher(appID: Self.appID, context: context)
        context.registerObject(documents, at: RestorationPath("Documents"))
    }

    var rootObjects: [any RestorableObject] { [documents] }

    /// Every zathura on the session bus: its file and page, oldest first.
    func running(until deadline: ContinuousClock.Instant) throws -> [Document] {
        let bus = try DBusClient.connect(until: deadline)
        defer { bus.close() }
        var found: [(started: UInt64, document: Document)] = []
        for name in try bus.names(startingWith: Self.namePrefix, until: deadline) {
            // The name is a claim; the bus knows who owns it. Keep it only
            // when that process is zathura, and is the one the name says.
            guard let pid = Int32(name.dropFirst(Self.namePrefix.count)),
                  (try? bus.processID(of: name, until: deadline)) == pid,
                  let process = UserProcess.all().first(where: { $0.pid == pid }), process.runs("zathura"),
                  let path = try? bus.property("filename", of: "org.pwmt.zathura", at: "/org/pwmt/zathura", on: name, until: deadline).stringValue,
                  path.hasPrefix("/"),
                  let page = try? bus.property("pagenumber", of: "org.pwmt.zathura", at: "/org/pwmt/zathura", on: name, until: deadline).int64Value
            else { continue }
            found.append((process.startTime, Document(path: path, page: page)))
        }
        return found.sorted { $0.started < $1.started }.map(\.document)
    }

    func saveDecision(coder: StateCoder) throws -> SaveDecision {
        let found = try running(until: WalkTime.deadline(in: context, atMost: .seconds(5)))
        guard !found.isEmpty else { return context.saveOccasion?.endsSession == true ? .keepLastArchive : .decline }
        // Identity: the file, and the order among the instances showing it.
        var seen: [String: Int] = [:]
        documents.documents = found.map { document in
            seen[document.path, default: 0] += 1
            return DocumentObject(document, copy: seen[document.path]!)
        }
        return .save
    }

    func shouldRestoreApplicationState(coder: StateCoder) -> Bool {
        documents.documents = []
        return true
    }

    func restorationDidFinish() {
        let deadline = WalkTime.deadline(in: context, atMost: .seconds(20))
        // Not twice: a file already open in as many windows starts nothing.
        var open: [String: Int] = [:]
        for document in (try? running(until: min(deadline, .now + .seconds(2)))) ?? [] { open[document.path, default: 0] += 1 }
        for object in documents.documents {
            guard let document = object.document, object.copy > open[document.path, default: 0] else { continue }
            guard FileManager.default.fileExists(atPath: document.path) else {
                context.log("not reopened: \(document.path) is gone", level: .warning)
                continue
            }
            // Saved strings are data: the file goes after `--`, the page is a number.
            do {
                _ = try launcher.launch(["zathura", "--page=\(max(0, document.page) + 1)", "--", document.path], named: "zathura showing \(document.path)", until: deadline)
            } catch {
                context.log("not reopened: \(document.path): \(error)", level: .warning)
            }
        }
    }
}

@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer { PluginExport.descriptor(for: ZathuraPlugin.self) }
