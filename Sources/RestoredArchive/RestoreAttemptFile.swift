import SystemPackage

/// An app's record of restore attempts as its file holds it, opened once
/// for the reading and, where it can be, the rewrite in place (R15).
///
/// The file is rewritten in place only where it is a file of its own that
/// a record fills: a regular file of ``RestoreAttemptRecord/fileSize``
/// bytes with one name, opened for writing without following a symbolic
/// link. Anything else (a symbolic link, a record of another size, a
/// second name, a file that cannot be opened for writing or read) is
/// replaced by a new file renamed over it, as an archive is; a file that
/// can be read but not written (mode 0400) still gives its counts.
struct RestoreAttemptFile: ~Copyable {
    /// The record the file holds: empty without a file, damaged when the
    /// file does not read as one (which counts one attempt for any archive).
    let record: RestoreAttemptRecord
    /// Whether there is no file of that name.
    let isAbsent: Bool
    /// Whether the file is open for writing and a record fills it, so
    /// that it can be rewritten in place.
    let isRewritableInPlace: Bool
    private let opened: FileDescriptor?
    private let fileSystem: FileSystem

    /// Opens and reads the record in `directory`, for a rewrite in place
    /// when `forUpdate`, else only to read it.
    init(in directory: ArchiveDirectory, forUpdate: Bool) {
        fileSystem = directory.context.fileSystem
        let (descriptor, writable, isAbsent) = Self.open(in: directory, forUpdate: forUpdate)
        self.isAbsent = isAbsent
        opened = descriptor
        guard let descriptor else {
            record = isAbsent ? RestoreAttemptRecord() : RestoreAttemptRecord(decoding: [])
            isRewritableInPlace = false
            return
        }
        guard let status = try? fileSystem.fstat(descriptor), status.kind == .regular,
              status.size <= Int64(RestoreAttemptRecord.maximumSize), let bytes = try? fileSystem.readAll(descriptor)
        else {
            record = RestoreAttemptRecord(decoding: [])
            isRewritableInPlace = false
            return
        }
        record = RestoreAttemptRecord(decoding: bytes)
        isRewritableInPlace = writable && bytes.count == RestoreAttemptRecord.fileSize && status.linkCount == 1
    }

    /// Writes `updated` over the record in place, at the start of the file
    /// (its size stays ``RestoreAttemptRecord/fileSize``), and flushes it
    /// (`fdatasync`); only where ``isRewritableInPlace``.
    func rewriteInPlace(with updated: RestoreAttemptRecord, in directory: ArchiveDirectory) throws(ArchiveStoreError) {
        guard isRewritableInPlace, let descriptor = opened else { preconditionFailure("the record's file cannot be rewritten in place") }
        let name = RestoreAttemptRecord.fileName
        try directory.perform(.write, on: name) { fileSystem throws(Errno) in try fileSystem.writeAll(updated.encoded, to: descriptor, atOffset: 0) }
        try directory.perform(.fdatasync, on: name) { fileSystem throws(Errno) in try fileSystem.fdatasync(descriptor) }
    }

    deinit {
        if let opened { try? fileSystem.close(opened) }
    }

    /// The record's file opened for reading and writing when `forUpdate`
    /// and it can be, else for reading; nil when it cannot be opened at
    /// all, with whether that is because there is no such name.
    private static func open(in directory: ArchiveDirectory, forUpdate: Bool) -> (FileDescriptor?, writable: Bool, isAbsent: Bool) {
        let name = RestoreAttemptRecord.fileName
        if forUpdate {
            do {
                return (try directory.openFileForUpdate(name), true, false)
            } catch where error == .noSuchFileOrDirectory {
                return (nil, false, true)
            } catch {
                // Not writable (a read-only file), or not a file to write:
                // what it counts is read, and the record is replaced.
            }
        }
        do {
            return (try directory.openFileForReading(name), false, false)
        } catch {
            return (nil, false, error == .noSuchFileOrDirectory)
        }
    }
}
