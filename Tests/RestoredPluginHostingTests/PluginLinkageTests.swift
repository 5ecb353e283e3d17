import Foundation
import RestoredTestSupport
import Testing

/// What restored's plugin hosts load: a host idles all session, and each
/// library the plugin links is memory it holds.
@Suite struct PluginLinkageTests {
    /// The shared libraries an image names (`DT_NEEDED`), from readelf.
    static func neededLibraries(of image: String) throws -> [String] {
        let run = try CompletedCommand.runNow("/usr/bin/readelf", ["--dynamic", "--wide", image], environment: ProcessInfo.processInfo.environment, in: URL(fileURLWithPath: "/"))
        try #require(run.status == 0, "readelf \(image): \(run.error)")
        return run.output.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test("restored's plugins, the SDK's runtime and the plugin host link FoundationEssentials, never Foundation (libFoundation and ICU cost each host about 1 MiB)")
    func foundationEssentialsOnly() throws {
        let images = ["TmuxPlugin", "SessionPlugin", "ExampleHelloPlugin", "ExampleMpvPlugin", "ExampleNotesPlugin", "SyntheticPlugin", "RestorationKit"].map(BuildProducts.plugin)
            + [BuildProducts.executable("restored-plugin-host")]
        for image in images {
            let needed = try Self.neededLibraries(of: image)
            #expect(needed.contains("libswiftCore.so"), "\(image): \(needed)")
            #expect(!needed.contains { $0.hasPrefix("libFoundation.") || $0.hasPrefix("libFoundationInternationalization.") || $0.hasPrefix("lib_FoundationICU.") }, "\(image): \(needed)")
        }
    }
}
