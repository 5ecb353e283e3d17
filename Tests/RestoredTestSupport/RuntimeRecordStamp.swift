import Foundation
import RestoredEngine

/// Copies of built images whose runtime record (`restored/runtime_record.h`)
/// says another thing: a plugin host of another restored version, a plugin
/// built for another Swift runtime. Made as a packager would, with binutils'
/// `objcopy --update-section` on the image's own note, so nothing but the
/// record differs; the new text keeps the record's length.
public enum RuntimeRecordStamp {
    /// Copies `image` to `destination` with its record's text replaced by
    /// `text` (padded with NULs to the record's size, which it may not pass).
    public static func copy(_ image: String, to destination: String, recordText text: String) throws {
        let current = RuntimeRecord.current.text
        let size = current.utf8.count + 1
        guard text.utf8.count < size else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the record \"\(text)\" is longer than \(size - 1) bytes"]) }
        var note = [UInt8]()
        func word(_ value: UInt32) { note += withUnsafeBytes(of: value.littleEndian, Array.init) }
        word(UInt32("restored".utf8.count + 1))
        word(UInt32(size))
        word(RuntimeRecord.noteType)
        note += Array("restored".utf8) + [UInt8](repeating: 0, count: 12 - "restored".utf8.count)
        var description = Array(text.utf8)
        description += [UInt8](repeating: 0, count: (size + 3) / 4 * 4 - description.count)
        note += description
        let section = destination + ".note"
        try Data(note).write(to: URL(fileURLWithPath: section))
        defer { try? FileManager.default.removeItem(atPath: section) }
        let run = try CompletedCommand.runNow(
            "/usr/bin/objcopy", ["--update-section", ".note.restored.runtime=\(section)", image, destination],
            environment: ProcessInfo.processInfo.environment, in: URL(fileURLWithPath: "/")
        )
        guard run.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "objcopy failed: \(run.error)"])
        }
        chmod(destination, 0o755)
    }

    /// The current record with `restored VERSION` replaced by `version` (of
    /// the same length or shorter).
    public static func recordText(version: String) -> String {
        let current = RuntimeRecord.current
        return current.text.replacingOccurrences(of: "restored \(current.version ?? "")", with: "restored \(version)")
    }
}
