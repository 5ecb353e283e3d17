public import SystemPackage
import SystemSupport

/// Keeps one archive per app on disk, with the generation before it, and
/// the last complete one while the newer saves are partial.
///
/// Layout: `<directory>/<app-id>/archive` holds the current generation and
/// `<directory>/<app-id>/archive.previous` the one before. A partial save
/// (one that left objects out, ``Archive/isPartial``) never pushes the last
/// complete archive out: before the first partial save after a complete one
/// rotates it away, it gets a second name, `archive.complete`
/// (``Generation/lastComplete``), which stays however many partial saves
/// follow, until a complete save replaces it or the user discards the app's
/// archives. Restores read the newest usable file by default; the last
/// complete one is read only when asked for. Directories are
/// mode 0700 and files 0600 whatever the umask; missing parents of
/// `directory` are created with mode 0700. The store refuses a state or app
/// directory that is a symbolic link or belongs to another user: each is
/// opened once per operation and checked on its descriptor, and every file
/// in it is reached through that descriptor (``ArchiveDirectory``), so no
/// path swapped between the check and the use is followed.
///
/// Nothing is ever half-written (``ArchiveFileReplacement``): a new archive
/// goes to a temporary file in the app's directory, which is flushed, then
/// renamed over `archive`, and the directory is flushed. At every instant
/// `archive` is a complete file (the old or the new one); hard links keep
/// the old files until the new state is durable, so a write that fails at
/// any step puts every file back as it was and throws. Hidden leftovers of
/// an interrupted write (`.archive.*.tmp`) are removed by the next write.
/// The file system must support hard links (every Linux file system for
/// home directories does).
///
/// One writer per app at a time: the daemon serializes the saves of an app;
/// reads may run at any time.
public struct ArchiveStore: Sendable {
    /// One of the two archive files of an app.
    public enum Generation: String, Hashable, Sendable, CaseIterable {
        /// The latest archive, `archive`.
        case current
        /// The archive before it, `archive.previous`.
        case previous
        /// The last complete archive while the newer ones are partial,
        /// `archive.complete`.
        case lastComplete

        /// The file's name in the app's directory.
        public var fileName: String {
            switch self {
            case .current: "archive"
            case .previous: "archive.previous"
            case .lastComplete: "archive.complete"
            }
        }
    }

    /// The largest archive file the store writes or reads, in bytes (1 GiB):
    /// anything bigger is refused rather than read into memory.
    public static let maximumArchiveSize = 1 << 30

    /// The state directory, holding one directory per app.
    public let directory: FilePath
    /// The file system every call goes through.
    public let fileSystem: FileSystem

    /// Creates a store in `directory` (created on first write).
    public init(directory: FilePath, fileSystem: FileSystem = .live) {
        self.directory = directory.lexicallyNormalized()
        self.fileSystem = fileSystem
    }

    /// The default state directory: `$XDG_STATE_HOME/restored`, or
    /// `$HOME/.local/state/restored` when `XDG_STATE_HOME` is unset, empty or
    /// relative (as the XDG base directory specification says).
    public static func defaultDirectory(environment: [String: String]) -> FilePath {
        FilePath(XDGBaseDirectories(environment: environment).stateHome).appending("restored")
    }

    /// The directory of `appID`'s archives.
    public func appDirectory(for appID: AppID) -> FilePath {
        directory.appending(appID.rawValue)
    }

    /// The path of `appID`'s archive file of `generation`.
    public func file(for appID: AppID, generation: Generation) -> FilePath {
        appDirectory(for: appID).appending(generation.fileName)
    }

    // MARK: - Writing

    /// Writes `archive` as its app's new current generation, keeping the
    /// current one as the previous generation, and returns it as written.
    ///
    /// The archive's generation becomes one more than the stored one's (1 for
    /// the first). Whether a stored file is intact is judged by its header,
    /// length and checksum (``ArchiveCodec/seal(of:)``), not a full decode:
    /// a file whose checksum holds but whose payload does not decode (only an
    /// encoder bug or a crafted file) is rotated like a valid one. If
    /// the current file is unusable (corrupt, another app's), it is replaced
    /// and the previous generation is kept instead; a current
    /// file of a newer format version becomes the previous generation like a
    /// valid one; if the current file cannot be read (an I/O error), nothing
    /// is written and this throws.
    ///
    /// Atomic and durable: when this returns, the new archive is on disk;
    /// when it throws, the files are as they were.
    @discardableResult
    public func write(_ archive: Archive) throws(ArchiveStoreError) -> Archive {
        try writeReportingSize(archive).archive
    }

    /// ``write(_:)``, also returning the size in bytes of the file written
    /// and, for a partial archive, the generation of the last complete one
    /// kept beside it (nil when there is none).
    public func writeReportingSize(_ archive: Archive) throws(ArchiveStoreError) -> (archive: Archive, byteCount: Int, lastComplete: UInt64?) {
        var written = archive
        let (byteCount, lastComplete) = try writeNewGeneration(of: archive.appID, isPartial: archive.isPartial) { generation in
            written.generation = generation
            return ArchiveCodec.encode(written)
        }
        return (written, byteCount, lastComplete)
    }

    /// ``write(_:)`` for an archive of `appID` already encoded and checked
    /// (``ArchiveCodec/check(_:)``), as a plugin host sends it: written with
    /// its new generation (``ArchiveCodec/restamped(_:generation:)``), not
    /// encoded again. Returns the generation and the size written and, for
    /// a partial archive, the generation of the last complete one kept
    /// beside it.
    public func write(encoded bytes: [UInt8], of appID: AppID) throws(ArchiveStoreError) -> (generation: UInt64, byteCount: Int, lastComplete: UInt64?) {
        var stamped: UInt64 = 0
        // Checked already: its header's flag says whether it is partial.
        let (byteCount, lastComplete) = try writeNewGeneration(of: appID, isPartial: ArchiveCodec.isMarkedPartial(bytes)) { generation in
            stamped = generation
            return ArchiveCodec.restamped(bytes, generation: generation)
        }
        return (stamped, byteCount, lastComplete)
    }

    /// Writes the bytes `encode` makes for the next generation number; a
    /// partial archive first pins the last complete one, a complete archive
    /// unpins it once written. Returns the size written and the generation
    /// of the last complete archive kept beside a partial one.
    private func writeNewGeneration(
        of appID: AppID, isPartial: Bool, _ encode: (UInt64) -> [UInt8]
    ) throws(ArchiveStoreError) -> (byteCount: Int, lastComplete: UInt64?) {
        let appDirectory = try prepareAppDirectory(for: appID, action: .save)
        let replacement = ArchiveFileReplacement(directory: appDirectory)
        replacement.removeLeftovers()
        // The header and checksum tell whether a file is intact and its
        // generation; decoding the payloads would double the cost of a save.
        let current = StoredArchiveFile.load(Generation.current.fileName, in: appDirectory, of: appID, depth: .seal)
        if let problem = current.problem, case .unreadable(let operation, let errno) = problem.reason {
            // It may well be a good archive: never replace what could not be read.
            throw appDirectory.failure(operation, Generation.current.fileName, errno)
        }
        let previous = StoredArchiveFile.load(Generation.previous.fileName, in: appDirectory, of: appID, depth: .seal)
        let stored = max(current.generation ?? 0, previous.generation ?? 0)
        let bytes = encode(stored == .max ? .max : stored + 1)
        guard bytes.count <= Self.maximumArchiveSize else {
            throw .archiveTooLarge(appID, size: bytes.count)
        }
        let complete = Generation.lastComplete.fileName
        let pin = isPartial ? try pinLastComplete(of: appID, in: appDirectory, current: current, previous: previous) : (made: false, generation: nil)
        do {
            try replacement.install(
                bytes,
                over: Generation.current.fileName,
                rotatingTo: current.generation != nil || current.isFromNewerFormat ? Generation.previous.fileName : nil,
                targetExists: !current.isAbsent,
                previousExists: !previous.isAbsent
            )
        } catch {
            // The files as they were: the complete archive is current still.
            if pin.made { _ = try? appDirectory.unlink(complete) }
            throw error
        }
        if !isPartial {
            // Best effort: a pin left behind is only an older complete
            // archive, replaced at the next partial save's check.
            if (try? appDirectory.unlink(complete)) == true {
                try? appDirectory.sync()
            }
        }
        return (bytes.count, pin.generation)
    }

    /// Gives the newest complete archive of `current` and `previous` the
    /// name `archive.complete`, unless a complete archive has it already.
    /// Throws, writing nothing, when the name cannot be made: the partial
    /// save must not rotate the complete archive away. Returns whether it
    /// made the name, and the generation the name holds (nil: none).
    private func pinLastComplete(
        of appID: AppID, in appDirectory: ArchiveDirectory, current: StoredArchiveFile, previous: StoredArchiveFile
    ) throws(ArchiveStoreError) -> (made: Bool, generation: UInt64?) {
        let complete = Generation.lastComplete.fileName
        let pinned = StoredArchiveFile.load(complete, in: appDirectory, of: appID, depth: .seal)
        var pinnedGeneration: UInt64?
        if case .sealed(let seal, _) = pinned, !seal.isPartial { pinnedGeneration = seal.generation }
        let source: (name: String, generation: UInt64)
        if case .sealed(let seal, _) = current, !seal.isPartial {
            source = (Generation.current.fileName, seal.generation)
        } else if case .sealed(let seal, _) = previous, !seal.isPartial {
            source = (Generation.previous.fileName, seal.generation)
        } else {
            // Pinned already, or no complete archive left to pin.
            return (false, pinnedGeneration)
        }
        if let pinnedGeneration, pinnedGeneration >= source.generation { return (false, pinnedGeneration) }
        if !pinned.isAbsent {
            try appDirectory.unlink(complete)
        }
        try appDirectory.link(source.name, to: complete)
        return (true, source.generation)
    }

    /// Replaces one generation's file of `archive`'s app with `archive` (by
    /// default the current one), keeping its generation number and leaving
    /// the other file alone.
    ///
    /// For changes that are not a new save: the restore-attempt counter (R15)
    /// and the ignore-snapshot flag (R12). Rewrite the generation that was
    /// read (``ArchiveReading/source``): a current file that could not be used
    /// (a newer format, an I/O error) must not be replaced by older content.
    /// Atomic and durable like ``write(_:)``.
    public func rewrite(_ archive: Archive, in generation: Generation = .current) throws(ArchiveStoreError) {
        try rewrite(ArchiveCodec.encode(archive), of: archive.appID, in: generation)
    }

    /// ``rewrite(_:in:)`` for an archive read as its bytes
    /// (``readEncoded(_:generation:)``), written as they are: the
    /// restore-attempt counter (R15) changed without encoding the archive again.
    public func rewrite(_ archive: EncodedArchive, in generation: Generation = .current) throws(ArchiveStoreError) {
        try rewrite(archive.bytes, of: archive.appID, in: generation)
    }

    /// Replaces `generation`'s file of `appID` with `bytes`, a whole archive.
    private func rewrite(_ bytes: [UInt8], of appID: AppID, in generation: Generation) throws(ArchiveStoreError) {
        guard bytes.count <= Self.maximumArchiveSize else {
            throw .archiveTooLarge(appID, size: bytes.count)
        }
        let appDirectory = try prepareAppDirectory(for: appID, action: .update)
        let replacement = ArchiveFileReplacement(directory: appDirectory)
        replacement.removeLeftovers()
        let targetExists = try appDirectory.status(of: generation.fileName) != nil
        try replacement.install(bytes, over: generation.fileName, rotatingTo: nil, targetExists: targetExists, previousExists: false)
    }

    // MARK: - Restore attempts (R15)

    /// Sets the restores counted as started and not finished for the
    /// archive `reading` read (R15) to `count`, durably; the counts of the
    /// app's other archives stay as they are.
    ///
    /// The count goes to the app's record (``RestoreAttemptRecord``), beside
    /// the archives, not into the archive: a restore counts its attempt and
    /// takes it back without rewriting the archive. Only an archive whose
    /// header holds a count above `count` (from a build before the record)
    /// is rewritten, once, as the generation that was read.
    ///
    /// The record's file is rewritten in place and flushed (`fdatasync`):
    /// its size never changes, so that is one block, and a record that
    /// counts nothing stays as a file that says so. Only where there is
    /// no such file of its own (the first restore, a symbolic link, a file
    /// of another size or with a second name) is the record installed as
    /// an archive is, by a new file renamed over the name. A rewrite cut
    /// short by a power cut can leave a record that does not read, which
    /// counts one attempt: the automatic restore is skipped once, and says
    /// why (R15 errs on that side).
    public func setRestoreAttempts(_ count: UInt32, for reading: EncodedArchiveReading) throws(ArchiveStoreError) {
        let archive = reading.archive
        if archive.restoreAttempts > count {
            try rewrite(archive.withRestoreAttempts(count), in: reading.source)
        }
        let appDirectory = try prepareAppDirectory(for: archive.appID, action: .update)
        let name = RestoreAttemptRecord.fileName
        let held = RestoreAttemptFile(in: appDirectory, forUpdate: true)
        let updated = held.record.settingAttempts(count, forGeneration: archive.generation)
        guard updated != held.record else { return }
        if held.isRewritableInPlace {
            try held.rewriteInPlace(with: updated, in: appDirectory)
        } else {
            let replacement = ArchiveFileReplacement(directory: appDirectory)
            replacement.removeLeftovers()
            try replacement.install(updated.encoded, over: name, rotatingTo: nil, targetExists: !held.isAbsent, previousExists: false)
        }
    }

    /// The record of restore attempts in `appDirectory`: empty without one,
    /// damaged when it cannot be read (a symbolic link, an I/O error, not
    /// a record), which counts one attempt for any archive.
    private func restoreAttemptRecord(in appDirectory: ArchiveDirectory) -> RestoreAttemptRecord {
        RestoreAttemptFile(in: appDirectory, forUpdate: false).record
    }

    /// The restore attempts that hold for the archive of `generation`
    /// whose header counts `header`: the larger of that and what
    /// `appDirectory`'s record counts for it; and whether that record is damaged.
    private func restoreAttempts(header: UInt32, generation: UInt64, in appDirectory: ArchiveDirectory) -> (count: UInt32, recordIsDamaged: Bool) {
        let record = restoreAttemptRecord(in: appDirectory)
        return (max(header, record.attempts(forGeneration: generation)), record.isDamaged)
    }

    /// Reads `appID`'s archive, applies `change` to it and rewrites it (see
    /// ``rewrite(_:in:)``, in the generation read); returns the archive as stored. Changes to the app id
    /// and the generation are ignored.
    @discardableResult
    public func update(_ appID: AppID, _ change: (inout Archive) -> Void) throws(ArchiveStoreError) -> Archive {
        let reading = try read(appID)
        var archive = reading.archive
        change(&archive)
        archive.appID = appID
        archive.generation = reading.archive.generation
        try rewrite(archive, in: reading.source)
        return archive
    }

    // MARK: - Reading

    /// Reads `appID`'s current archive, or its previous generation when the
    /// current one is missing or unusable (the reading lists why).
    ///
    /// Throws ``ArchiveStoreError/noArchive(_:)`` when nothing is stored and
    /// ``ArchiveStoreError/noUsableArchive(_:current:previous:)`` when
    /// neither file can be used. Never traps on a file's contents (R16).
    public func read(_ appID: AppID) throws(ArchiveStoreError) -> ArchiveReading {
        let (file, source, problems, appDirectory) = try newestUsable(of: appID, depth: .decode)
        guard case .archive(let archive, let size) = file else { preconditionFailure("a decoding load gives an archive") }
        return ArchiveReading(
            archive: archive, source: source, byteCount: size, problems: problems,
            attempts: restoreAttempts(header: archive.restoreAttempts, generation: archive.generation, in: appDirectory)
        )
    }

    /// Reads exactly `generation`'s file of `appID` (``read(_:)`` reads the
    /// newest usable one): ``ArchiveStoreError/noArchive(_:)`` when it does
    /// not exist, ``ArchiveStoreError/noUsableArchive(_:current:previous:)``
    /// (its problem as the current file's) when it cannot be used.
    public func read(_ appID: AppID, generation: Generation) throws(ArchiveStoreError) -> ArchiveReading {
        let (file, source, problems, appDirectory) = try newestUsable(of: appID, depth: .decode, generation: generation)
        guard case .archive(let archive, let size) = file else { preconditionFailure("a decoding load gives an archive") }
        return ArchiveReading(
            archive: archive, source: source, byteCount: size, problems: problems,
            attempts: restoreAttempts(header: archive.restoreAttempts, generation: archive.generation, in: appDirectory)
        )
    }

    /// Reads what ``read(_:)`` reads (or, given `generation`, what
    /// ``read(_:generation:)`` reads), checked as fully, kept as the
    /// file's bytes: for a restore that hands them on
    /// (``EncodedArchive``). Throws like ``read(_:)``.
    public func readEncoded(_ appID: AppID, generation: Generation? = nil) throws(ArchiveStoreError) -> EncodedArchiveReading {
        let (file, source, problems, appDirectory) = try newestUsable(of: appID, depth: .check, generation: generation)
        guard case .encoded(let archive, let size) = file else { preconditionFailure("a checking load gives the bytes") }
        return EncodedArchiveReading(
            archive: archive, source: source, byteCount: size, problems: problems,
            attempts: restoreAttempts(header: archive.restoreAttempts, generation: archive.generation, in: appDirectory)
        )
    }

    /// What a restore would read for `appID`, from the files' headers and
    /// checksums only (``ArchiveCodec/seal(of:)``): the listing of
    /// `ListApps` and `restored-ctl apps`, without decoding every object.
    /// Throws like ``read(_:)``.
    public func summary(of appID: AppID) throws(ArchiveStoreError) -> ArchiveSummary {
        let (file, source, problems, appDirectory) = try newestUsable(of: appID, depth: .seal)
        guard case .sealed(let seal, let size) = file else { preconditionFailure("a sealing load gives the seal") }
        var lastComplete: ArchiveCodec.Seal?
        if case .sealed(let seal, _) = StoredArchiveFile.load(Generation.lastComplete.fileName, in: appDirectory, of: appID, depth: .seal) {
            lastComplete = seal
        }
        let attempts = restoreAttempts(header: seal.restoreAttempts, generation: seal.generation, in: appDirectory)
        return ArchiveSummary(
            seal: seal, source: source, byteCount: size, problems: problems, lastComplete: lastComplete,
            restoreAttempts: attempts.count, restoreAttemptRecordIsDamaged: attempts.recordIsDamaged
        )
    }

    /// The newest usable file of `appID` read to `depth` (or exactly
    /// `generation`'s), where it came from, what was wrong with the current
    /// one when the previous one is used, and the app's directory, open.
    private func newestUsable(
        of appID: AppID, depth: StoredArchiveFile.Depth, generation: Generation? = nil
    ) throws(ArchiveStoreError) -> (file: StoredArchiveFile, source: Generation, problems: [ArchiveProblem], directory: ArchiveDirectory) {
        guard let appDirectory = try openAppDirectory(for: appID, action: .read) else {
            throw .noArchive(appID)
        }
        func load(_ generation: Generation) -> StoredArchiveFile {
            StoredArchiveFile.load(generation.fileName, in: appDirectory, of: appID, depth: depth)
        }
        if let generation {
            let file = load(generation)
            if file.isUsable { return (file, generation, [], appDirectory) }
            if let problem = file.problem { throw .noUsableArchive(appID, current: problem, previous: nil) }
            throw .noArchive(appID)
        }
        let current = load(.current)
        if current.isUsable { return (current, .current, [], appDirectory) }
        let previous = load(.previous)
        if previous.isUsable { return (previous, .previous, current.problem.map { [$0] } ?? [], appDirectory) }
        if current.isAbsent && previous.isAbsent {
            throw .noArchive(appID)
        }
        throw .noUsableArchive(appID, current: current.problem, previous: previous.problem)
    }

    /// The state of every one of `appID`'s archive files, checked in full.
    public func verify(_ appID: AppID) -> ArchiveVerification {
        func status(_ loaded: StoredArchiveFile) -> ArchiveVerification.Status {
            switch loaded {
            case .absent:
                return .absent
            case .archive(let archive, let size):
                return .ok(generation: archive.generation, size: size)
            case .encoded(let encoded, let size):
                return .ok(generation: encoded.generation, size: size)
            case .sealed(let seal, let size):
                return .ok(generation: seal.generation, size: size)
            case .problem(let problem):
                if case .corrupt(let error) = problem.reason {
                    return .corrupt(error)
                }
                return .unusable(problem)
            }
        }
        let appDirectory: ArchiveDirectory
        do {
            guard let opened = try openAppDirectory(for: appID, action: .read) else {
                return ArchiveVerification(appID: appID, current: .absent, previous: .absent)
            }
            appDirectory = opened
        } catch {
            let problem: ArchiveProblem =
                switch error {
                case .unsafeDirectory(let path, let reason):
                    ArchiveProblem(file: path, reason: .unsafeDirectory(reason))
                case .systemCall(let failure):
                    ArchiveProblem(file: failure.path, reason: .unreadable(failure.operation, failure.errno))
                default:
                    ArchiveProblem(file: directory, reason: .unreadable(.open, .ioError))
                }
            return ArchiveVerification(appID: appID, current: .unusable(problem), previous: .unusable(problem))
        }
        func load(_ generation: Generation) -> StoredArchiveFile {
            StoredArchiveFile.load(generation.fileName, in: appDirectory, of: appID)
        }
        return ArchiveVerification(
            appID: appID,
            current: status(load(.current)),
            previous: status(load(.previous)),
            lastComplete: status(load(.lastComplete))
        )
    }

    /// The apps that have a directory in the store, sorted; names that are
    /// not valid app ids are ignored.
    public func appIDs() throws(ArchiveStoreError) -> [AppID] {
        guard let stateDirectory = try ArchiveDirectory.open(directory, context: context(.list, nil)) else {
            return []
        }
        var appIDs: [AppID] = []
        for name in try stateDirectory.names() {
            guard let appID = try? AppID(name) else { continue }
            guard let status = try? stateDirectory.status(of: name), status.kind == .directory else {
                continue
            }
            appIDs.append(appID)
        }
        return appIDs.sorted()
    }

    // MARK: - Discarding

    /// Removes every one of `appID`'s archive files and its directory; returns
    /// whether there was anything to remove (R15: the user's explicit discard).
    @discardableResult
    public func discard(_ appID: AppID) throws(ArchiveStoreError) -> Bool {
        guard let stateDirectory = try ArchiveDirectory.open(directory, context: context(.discard, appID)),
            let appDirectory = try stateDirectory.openSubdirectory(appID.rawValue)
        else {
            return false
        }
        // The record first: a discard cut short never leaves counts for
        // generation numbers a new archive will use again.
        if try appDirectory.unlink(RestoreAttemptRecord.fileName) {
            try appDirectory.sync()
        }
        for name in try appDirectory.names()
        where Generation.allCases.contains(where: { $0.fileName == name }) || ArchiveFileReplacement.isLeftover(name) {
            try appDirectory.unlink(name)
        }
        try stateDirectory.removeSubdirectory(appID.rawValue)
        try stateDirectory.sync()
        return true
    }

    // MARK: - Directories

    /// What a store call is doing, for its directories' errors.
    private func context(_ action: ArchiveStoreError.Action, _ appID: AppID?) -> ArchiveDirectory.Context {
        ArchiveDirectory.Context(fileSystem: fileSystem, action: action, appID: appID, storeDirectory: directory)
    }

    /// Opens and checks the state directory and `appID`'s directory in it,
    /// to read; nil when either does not exist.
    private func openAppDirectory(for appID: AppID, action: ArchiveStoreError.Action) throws(ArchiveStoreError) -> ArchiveDirectory? {
        guard let stateDirectory = try ArchiveDirectory.open(directory, context: context(action, appID)) else {
            return nil
        }
        return try stateDirectory.openSubdirectory(appID.rawValue)
    }

    /// Opens the state directory and `appID`'s directory in it, to write:
    /// each made when missing (the state directory's parents too), checked
    /// once and set to mode 0700.
    private func prepareAppDirectory(for appID: AppID, action: ArchiveStoreError.Action) throws(ArchiveStoreError) -> ArchiveDirectory {
        let stateDirectory = try ArchiveDirectory.prepare(directory, creatingParents: true, context: context(action, appID))
        return try stateDirectory.prepareSubdirectory(appID.rawValue)
    }
}
