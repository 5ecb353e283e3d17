import ArgumentParser
import Foundation
import Logging
import RestoredArchive
import RestoredEngine
import RestoredState
import SystemPackage

/// `restored-bench codec`: our coder against Foundation's, on one synthetic tree.
struct CodecBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codec",
        abstract: "Encode and decode a synthetic state tree with restored's coder and with Foundation's coders.",
        discussion: """
            restored's side is the real path: the synthetic plugin, loaded with dlopen, encodes \
            each object through the SDK's StateCoder and the C ABI into the archive bytes, and \
            decodes them back into a fresh instance, which checks every value. Foundation's \
            coders encode and decode the same records (one Codable struct per object). \
            NSKeyedArchiver is far slower on Linux, so it gets a smaller tree and is compared per object.
            """
    )

    @Option(help: "Objects in the tree.")
    var objects = 10_000

    @Option(help: "Rounds; the median is reported.")
    var rounds = 5

    @Option(help: "Objects for NSKeyedArchiver.")
    var keyedArchiverObjects = 250

    @Flag(help: "Measure restored only, without the Foundation baselines (for profiling).")
    var restoredOnly = false

    @Option(name: .customLong("plugin-dir"), help: "Where libSyntheticPlugin.so is (default: beside this program).")
    var pluginDirectory: String?

    func run() throws {
        let logger = InProcessWalks.logger()
        let synthetic = try SyntheticApp(pluginDirectory: pluginDirectory, logger: logger)
        let engine = InProcessWalks.engine(logger: logger)

        // restored's coder: every object encoded through the SDK's StateCoder and
        // the C ABI into its container, then the archive format; and back.
        var coderArchive: [UInt8] = []
        var encodingTree = try synthetic.tree(objects: objects)
        var decodingTree = try synthetic.tree(objects: objects, empty: true)
        let coder = try measure(rounds: rounds, prepare: {
            encodingTree = try synthetic.tree(objects: objects)
            decodingTree = try synthetic.tree(objects: objects, empty: true)
        }) {
            coderArchive = try encodingTree.encode()
        } decode: {
            try decodingTree.decode(coderArchive)
        }
        try decodingTree.verify()

        // The whole preservation and restoration walks (tree discovery, R3 path
        // checks, R8 lookups, R9 phases) around the same coder.
        var encodedArchive: [UInt8] = []
        var encodingSession = try synthetic.session(objects: objects)
        var decodingSession = try synthetic.session(objects: objects, empty: true)
        let ours = try measure(rounds: rounds, prepare: {
            // A fresh app instance per round, built outside the timing.
            encodingSession = try synthetic.session(objects: objects)
            decodingSession = try synthetic.session(objects: objects, empty: true)
        }) {
            let (archive, report) = engine.makeArchive(of: encodingSession)
            guard let archive, report.issues.isEmpty else { throw BenchmarkFailure("preservation failed: \(report.issues)") }
            encodedArchive = ArchiveCodec.encode(archive)
        } decode: {
            let archive = try ArchiveCodec.decode(encodedArchive)
            let report = engine.restore(decodingSession, from: archive)
            guard report.outcome == .restored, report.issues.isEmpty, report.restoredPaths.count == objects else {
                throw BenchmarkFailure("restoration failed or lost data: \(report.outcome) \(report.issues.prefix(3))")
            }
        }
        if restoredOnly {
            print("restored coder: encode \(Self.milliseconds(coder.encode)), decode \(Self.milliseconds(coder.decode))")
            print("restored walks: encode \(Self.milliseconds(ours.encode)), decode \(Self.milliseconds(ours.decode)), \(Self.bytes(encodedArchive.count))")
            return
        }
        let records = try SyntheticRecord.records(from: ArchiveCodec.decode(coderArchive))

        // Foundation, on the same values.
        var json = Data()
        let jsonTimes = try measure(rounds: rounds) {
            json = try JSONEncoder().encode(records)
        } decode: {
            let decoded = try JSONDecoder().decode([SyntheticRecord].self, from: json)
            guard decoded == records else { throw BenchmarkFailure("JSON round trip lost data") }
        }
        var plist = Data()
        let plistTimes = try measure(rounds: rounds) {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            plist = try encoder.encode(records)
        } decode: {
            let decoded = try PropertyListDecoder().decode([SyntheticRecord].self, from: plist)
            guard decoded == records else { throw BenchmarkFailure("property list round trip lost data") }
        }
        let small = Array(records.prefix(keyedArchiverObjects))
        var keyed = Data()
        let keyedTimes = try measure(rounds: rounds) {
            keyed = try NSKeyedArchiver.archivedData(withRootObject: small.map(SyntheticRecordObject.init), requiringSecureCoding: false)
        } decode: {
            let decoded = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(keyed) as? [SyntheticRecordObject]
            guard decoded?.map(\.record) == small else { throw BenchmarkFailure("keyed archive round trip lost data") }
        }

        let texts = records.filter { $0.body.utf8.count >= 1024 }.count
        print("codec benchmark: \(objects) objects, 8 keys each, \(texts) with 1 KiB of text; median of \(rounds) rounds")
        print("")
        let header = ["coder", "encode", "decode", "round trip", "size", "round trip vs restored", "size vs restored"]
        var rows: [[String]] = []
        func row(_ name: String, _ times: Timing, size: Int, scale: Double = 1) {
            rows.append([
                name, Self.milliseconds(times.encode * scale), Self.milliseconds(times.decode * scale),
                Self.milliseconds(times.roundTrip * scale), Self.bytes(Int(Double(size) * scale)),
                String(format: "%.1fx", times.roundTrip * scale / coder.roundTrip),
                String(format: "%.2fx", Double(size) * scale / Double(coderArchive.count)),
            ])
        }
        row("restored coder (StateCoder, C ABI, archive)", coder, size: coderArchive.count)
        row("restored full walks around it", ours, size: encodedArchive.count)
        row("JSONEncoder / JSONDecoder", jsonTimes, size: json.count)
        row("PropertyList (binary)", plistTimes, size: plist.count)
        let perObject = Double(objects) / Double(max(small.count, 1))
        row("NSKeyedArchiver (\(small.count) objects, scaled)", keyedTimes, size: keyed.count, scale: perObject)
        Self.printTable([header] + rows)
        print("")
        let speedup = jsonTimes.roundTrip / coder.roundTrip
        print(String(format: "goal: coder round trip at least 20x faster than JSON: %.1fx (%@)", speedup, speedup >= 20 ? "met" : "NOT met"))
        print(String(format: "      full walks round trip vs JSON: %.1fx", jsonTimes.roundTrip / ours.roundTrip))
        print("goal: archive no larger than JSON: \(coderArchive.count) vs \(json.count) bytes (\(coderArchive.count <= json.count ? "met" : "NOT met"))")
    }

    struct Timing {
        var encode: Double
        var decode: Double
        var roundTrip: Double { encode + decode }
    }

    /// Medians, in seconds, of `rounds` encodes and decodes.
    private func measure(rounds: Int, prepare: () throws -> Void = {}, encode: () throws -> Void, decode: () throws -> Void) throws -> Timing {
        var encodes: [Double] = []
        var decodes: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<max(rounds, 1) {
            try prepare()
            encodes.append(Self.seconds(try clock.measure(encode)))
            decodes.append(Self.seconds(try clock.measure(decode)))
        }
        return Timing(encode: Self.median(encodes), decode: Self.median(decodes))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    static func milliseconds(_ seconds: Double) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }

    static func bytes(_ count: Int) -> String {
        count >= 1 << 20 ? String(format: "%.2f MiB", Double(count) / Double(1 << 20)) : String(format: "%.1f KiB", Double(count) / 1024)
    }

    static func printTable(_ rows: [[String]]) {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            print(row.enumerated().map { index, cell in
                index == 0 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  "))
        }
    }
}

/// A benchmark that cannot report, and why.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
