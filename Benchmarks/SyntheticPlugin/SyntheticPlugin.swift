import FoundationEssentials
import Glibc
import RestorationKit

/// A synthetic app for benchmarks (`org.restored.bench.Synthetic`).
///
/// Copies of the file named `libSyntheticPlugin-<N>.so` serve the app
/// `org.restored.bench.Synthetic<N>`, so one build gives the suspend
/// benchmark as many apps as it wants (each copy is a separate image).
///
/// Option `objects` (default 10,000): a tree of that many objects, ten
/// children each, with eight keys per object and 1 KiB of text on every
/// tenth. Option `empty`: the objects start without state. Every object exists at launch and is registered by path, so a
/// restoration reaches all of them; after decoding, each object's values are
/// checked against what was generated, and a mismatch fails the restoration.
final class SyntheticPlugin: RestorationPlugin {
    static let appID = "org.restored.bench.Synthetic" + SyntheticPlugin.copyNumber
    static let appVersion = "1"

    /// The `<N>` of this image's file name `libSyntheticPlugin-<N>.so`, or "".
    /// The image is the mapping of `/proc/self/maps` that holds our entry point.
    private static var copyNumber: String {
        let entry: @convention(c) () -> UnsafeRawPointer = restoredPluginV1
        let address = UInt(bitPattern: unsafeBitCast(entry, to: UnsafeRawPointer.self))
        guard let maps = readWhole("/proc/self/maps"), var path = mappedFile(containing: address, in: maps) else { return "" }
        // The kernel marks a file deleted or replaced since it was mapped.
        let deleted = " (deleted)"
        if path.hasSuffix(deleted) { path.removeLast(deleted.count) }
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let prefix = "libSyntheticPlugin-", suffix = ".so"
        guard file.hasPrefix(prefix), file.hasSuffix(suffix) else { return "" }
        let number = file.dropFirst(prefix.count).dropLast(suffix.count)
        return !number.isEmpty && number.allSatisfy({ $0.isASCII && $0.isNumber }) ? String(number) : ""
    }

    /// The path of the file mapped at `address`, from the bytes of
    /// `/proc/self/maps` (lines of `start-end perms offset dev inode path`).
    ///
    /// Read as bytes, with a string made only of the path found: splitting
    /// the text into strings took most of a millisecond in a plugin host, at
    /// every host's start, which the login figures of the benchmarks counted
    /// as restored's.
    private static func mappedFile(containing address: UInt, in maps: [UInt8]) -> String? {
        let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
        var lineStart = 0
        while lineStart < maps.count {
            let lineEnd = maps[lineStart...].firstIndex(of: newline) ?? maps.count
            let line = maps[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            var cursor = line.startIndex
            guard let start = hexNumber(line, &cursor, until: UInt8(ascii: "-")),
                  let end = hexNumber(line, &cursor, until: space),
                  start <= address, address < end
            else { continue }
            // Skip the permissions, offset, device and inode fields.
            for _ in 0..<4 {
                while cursor < line.endIndex, line[cursor] == space { cursor += 1 }
                while cursor < line.endIndex, line[cursor] != space { cursor += 1 }
            }
            while cursor < line.endIndex, line[cursor] == space { cursor += 1 }
            guard cursor < line.endIndex else { return nil }
            return String(decoding: line[cursor...], as: UTF8.self)
        }
        return nil
    }

    /// A hexadecimal number at `cursor`, ended by `terminator` (which it
    /// steps over), or nil.
    private static func hexNumber(_ line: ArraySlice<UInt8>, _ cursor: inout Int, until terminator: UInt8) -> UInt? {
        var value: UInt = 0
        var digits = 0
        while cursor < line.endIndex, line[cursor] != terminator {
            let byte = line[cursor]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            guard digits < UInt.bitWidth / 4 else { return nil }
            value = value << 4 | UInt(digit)
            digits += 1
            cursor += 1
        }
        guard digits > 0, cursor < line.endIndex else { return nil }
        cursor += 1
        return value
    }

    /// The whole of a file read until its end, or nil: /proc files report
    /// the size 0, and a single read returns only the first page, which may
    /// not hold this image.
    private static func readWhole(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    private let nodes: [SyntheticNode]

    init(context: PluginContext) throws {
        let count = Int(context.options["objects"] ?? "10000") ?? 10_000
        // Option `empty`: the objects exist but hold no state yet, as in an
        // app that was just launched and is about to be restored.
        let empty = context.options["empty"] == "true"
        nodes = (0..<max(count, 1)).map { empty ? SyntheticNode(emptyAt: $0) : SyntheticNode(index: $0) }
        for index in 1..<nodes.count {
            nodes[(index - 1) / 10].children.append(nodes[index])
        }
        var paths: [RestorationPath] = [RestorationPath(nodes[0].restorationIdentifier!)]
        for index in 1..<nodes.count {
            paths.append(paths[(index - 1) / 10].appending(nodes[index].restorationIdentifier!))
        }
        for (node, path) in zip(nodes, paths) { context.registerObject(node, at: path) }
    }

    var rootObjects: [any RestorableObject] { [nodes[0]] }

    func didDecodeRestorableState(with coder: StateCoder) throws {
        let wrong = nodes.filter { !$0.matchesGenerated }.count
        if wrong > 0 { throw SyntheticMismatch(count: wrong) }
    }
}

/// Decoded values that differ from the generated ones.
struct SyntheticMismatch: Error, CustomStringConvertible {
    let count: Int
    var description: String { "\(count) objects decoded other values than were encoded" }
}

/// One synthetic object: eight keys, text on every tenth.
///
/// Like a real app's objects, it holds its state in stored properties and
/// only copies them into the coder; the generated values are recomputed only
/// to verify a restoration.
final class SyntheticNode: RestorableObject {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)?
    var children: [SyntheticNode] = []
    let index: Int
    var values: SyntheticValues

    init(index: Int) {
        self.index = index
        restorationIdentifier = "n\(index)"
        values = SyntheticValues(index: index)
    }

    /// A fresh instance's object before restoration: empty state.
    init(emptyAt index: Int) {
        self.index = index
        restorationIdentifier = "n\(index)"
        values = SyntheticValues()
    }

    var restorationChildren: [any RestorableObject] { children }
    var restorationClassName: String { "SyntheticNode" }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(values.title, forKey: "title")
        try coder.encode(values.number, forKey: "number")
        try coder.encode(values.selected, forKey: "selected")
        try coder.encode(values.scroll, forKey: "scroll")
        try coder.encode(values.zoom, forKey: "zoom")
        try coder.encode(values.tags, forKey: "tags")
        try coder.encode(values.modified, forKey: "modified")
        try coder.encode(values.body, forKey: "body")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        values.title = try coder.decode(String.self, forKey: "title") ?? ""
        values.number = try coder.decode(Int.self, forKey: "number") ?? -1
        values.selected = try coder.decode(Bool.self, forKey: "selected") ?? false
        values.scroll = try coder.decode(Double.self, forKey: "scroll") ?? -1
        values.zoom = try coder.decode(Double.self, forKey: "zoom") ?? -1
        values.tags = try coder.decode([String].self, forKey: "tags") ?? []
        values.modified = try coder.decode(Date.self, forKey: "modified") ?? Date(timeIntervalSince1970: 0)
        values.body = try coder.decode(String.self, forKey: "body") ?? ""
    }

    var matchesGenerated: Bool { values == SyntheticValues(index: index) }
}

/// The eight values of a synthetic object.
struct SyntheticValues: Equatable {
    static let text = String(String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 18).prefix(1024))

    var title = ""
    var number = 0
    var selected = false
    var scroll = 0.0
    var zoom = 0.0
    var tags: [String] = []
    var modified = Date(timeIntervalSince1970: 0)
    var body = ""

    init() {}

    /// The values generated for object `index`.
    init(index: Int) {
        title = "Object \(index)"
        number = index
        selected = index % 3 == 0
        scroll = Double(index) * 0.5
        zoom = 1.0 + Double(index % 4) / 4
        tags = ["t\(index % 7)", "t\(index % 11)", "t\(index % 13)"]
        modified = Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
        body = index % 10 == 0 ? Self.text : "note \(index)"
    }
}

@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer { PluginExport.descriptor(for: SyntheticPlugin.self) }
