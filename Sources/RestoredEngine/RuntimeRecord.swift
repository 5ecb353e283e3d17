internal import CRestoredRuntimeRecord
public import SystemPackage

/// The record of the Swift runtime and the SDK an image was built against
/// (`restored/runtime_record.h`): "restored VERSION; toolchain CLANG-VERSION".
///
/// Swift has no stable ABI on Linux, so a Swift plugin runs only in the
/// runtime it was built for. The SDK's `RestoredRuntimeRecord` product puts
/// the record into every Swift plugin as an ELF note; the plugin loader
/// reads it from the file before the plugin is loaded, and refuses a plugin
/// whose record is not the host's (``PluginRefusal/Reason/wrongRuntime(found:expected:)``).
/// A plugin without a record (a C plugin, whose ABI is stable, or a Swift
/// plugin built before the record existed) is loaded as before.
public struct RuntimeRecord: Hashable, Sendable, CustomStringConvertible {
    /// The note's owner.
    public static let noteOwner = "restored"
    /// The note's type under its owner.
    public static let noteType: UInt32 = RESTORED_RUNTIME_NOTE_TYPE

    /// The record's text.
    public var text: String

    /// A record of `text`.
    public init(text: String) {
        self.text = text
    }

    /// The record of the running image: restored's own version and toolchain.
    public static let current = RuntimeRecord(text: String(cString: c_restored_runtime_record_text()))

    /// The record in `file`'s notes; nil when it has none.
    public init?(readingNotesOf file: FilePath) throws(Errno) {
        let notes = try ELFNoteReader(file: file).notes()
        guard let note = notes.first(where: { $0.owner == Self.noteOwner && $0.type == Self.noteType }) else { return nil }
        text = String(decoding: note.description.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The version of restored (and of the SDK) it names: `0.3.0`.
    public var version: String? {
        guard text.hasPrefix("restored ") else { return nil }
        return text.dropFirst("restored ".count).prefix { $0 != ";" }.description
    }

    /// The toolchain it names: its clang's version line.
    public var toolchain: String? {
        let marker = "; toolchain "
        guard let start = text.indices.first(where: { text[$0...].hasPrefix(marker) }) else { return nil }
        return String(text[text.index(start, offsetBy: marker.count)...])
    }

    /// The record's text.
    public var description: String { text }
}
