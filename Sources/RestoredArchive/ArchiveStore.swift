public import SystemPackage
import Glibc
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
/// directory that is a symbolic link or belongs to another user.
///
/// Nothing is ever half-written: a new archive goes to a temporary file in
/// the app's directory, which is flushed, then renamed over `archive`, and
/// the directory is flushed. At every instant `archive` is a complete file
/// (the old or the new one); hard links keep the old files until the new
/// state is durable, so a write that fails at any step puts every file back
/// as it was and throws. Hidden leftovers of an interrupted write
/// (`.archive.*.tmp`) are removed by the next write. The file system must
/// support hard links (every Linux file system for home directories does).
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

    private static let leftoverPrefix = ".archive."
    private static let leftoverSuffix = ".tmp"

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
        let appDirectory = try prepareDirectories(for: appID, action: .save)
        removeLeftovers(in: appDirectory)
        let currentFile = file(for: appID, generation: .current)
        // The header and checksum tell whether a file is intact and its
        // generation; decoding the payloads would double the cost of a save.
        let current = load(currentFile, of: appID, sealOnly: true)
        if let problem = current.problem, case .unreadable(let operation, let errno) = problem.reason {
            // It may well be a good archive: never replace what could not be read.
            throw failure(.save, appID, operation, currentFile, errno)
        }
        let previous = load(file(for: appID, generation: .previous), of: appID, sealOnly: true)
        let stored = max(current.generation ?? 0, previous.generation ?? 0)
        let bytes = encode(stored == .max ? .max : stored + 1)
        guard bytes.count <= Self.maximumArchiveSize else {
            throw .archiveTooLarge(appID, size: bytes.count)
        }
        let completeFile = file(for: appID, generation: .lastComplete)
        let pin = isPartial ? try pinLastComplete(of: appID, current: current, previous: previous, at: completeFile) : (made: false, generation: nil)
        do {
            try install(
                bytes,
                of: appID,
                in: appDirectory,
                action: .save,
                rotating: current.generation != nil || current.isFromNewerFormat,
                currentExists: !current.isAbsent,
                previousExists: !previous.isAbsent
            )
        } catch {
            // The files as they were: the complete archive is current still.
            if pin.made { try? fileSystem.unlink(completeFile) }
            throw error
        }
        if !isPartial {
            // Best effort: a pin left behind is only an older complete
            // archive, replaced at the next partial save's check.
            if (try? fileSystem.unlink(completeFile)) != nil {
                try? fileSystem.syncDirectory(appDirectory)
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
        of appID: AppID, current: Loaded, previous: Loaded, at completeFile: FilePath
    ) throws(ArchiveStoreError) -> (made: Bool, generation: UInt64?) {
        let pinned = load(completeFile, of: appID, sealOnly: true)
        var pinnedGeneration: UInt64?
        if case .sealed(let seal, _) = pinned, !seal.isPartial { pinnedGeneration = seal.generation }
        let source: (file: FilePath, generation: UInt64)
        if case .sealed(let seal, _) = current, !seal.isPartial {
            source = (file(for: appID, generation: .current), seal.generation)
        } else if case .sealed(let seal, _) = previous, !seal.isPartial {
            source = (file(for: appID, generation: .previous), seal.generation)
        } else {
            // Pinned already, or no complete archive left to pin.
            return (false, pinnedGeneration)
        }
        if let pinnedGeneration, pinnedGeneration >= source.generation { return (false, pinnedGeneration) }
        if !pinned.isAbsent {
            try perform(.save, appID, .unlink, completeFile) { () throws(Errno) in try fileSystem.unlink(completeFile) }
        }
        try perform(.save, appID, .link, source.file, to: completeFile) { () throws(Errno) in
            try fileSystem.link(source.file, to: completeFile)
        }
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
        let appID = archive.appID
        let appDirectory = try prepareDirectories(for: appID, action: .update)
        removeLeftovers(in: appDirectory)
        let targetFile = file(for: appID, generation: generation)
        var currentExists = true
        do {
            _ = try fileSystem.lstat(targetFile)
        } catch where error == .noSuchFileOrDirectory {
            currentExists = false
        } catch {
            throw failure(.update, appID, .lstat, targetFile, error)
        }
        let bytes = ArchiveCodec.encode(archive)
        guard bytes.count <= Self.maximumArchiveSize else {
            throw .archiveTooLarge(appID, size: bytes.count)
        }
        try install(
            bytes,
            of: appID,
            in: appDirectory,
            action: .update,
            rotating: false,
            target: generation,
            currentExists: currentExists,
            previousExists: false
        )
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
        guard try checkDirectory(directory, action: .read, appID: appID) != nil,
            try checkDirectory(appDirectory(for: appID), action: .read, appID: appID) != nil
        else {
            throw .noArchive(appID)
        }
        let current = load(file(for: appID, generation: .current), of: appID)
        if case .archive(let archive, let size) = current {
            return ArchiveReading(archive: archive, source: .current, byteCount: size)
        }
        let previous = load(file(for: appID, generation: .previous), of: appID)
        if case .archive(let archive, let size) = previous {
            return ArchiveReading(archive: archive, source: .previous, byteCount: size, problems: current.problem.map { [$0] } ?? [])
        }
        if current.isAbsent && previous.isAbsent {
            throw .noArchive(appID)
        }
        throw .noUsableArchive(appID, current: current.problem, previous: previous.problem)
    }

    /// Reads exactly `generation`'s file of `appID` (``read(_:)`` reads the
    /// newest usable one): ``ArchiveStoreError/noArchive(_:)`` when it does
    /// not exist, ``ArchiveStoreError/noUsableArchive(_:current:previous:)``
    /// (its problem as the current file's) when it cannot be used.
    public func read(_ appID: AppID, generation: Generation) throws(ArchiveStoreError) -> ArchiveReading {
        guard try checkDirectory(directory, action: .read, appID: appID) != nil,
            try checkDirectory(appDirectory(for: appID), action: .read, appID: appID) != nil
        else {
            throw .noArchive(appID)
        }
        switch load(file(for: appID, generation: generation), of: appID) {
        case .archive(let archive, let size): return ArchiveReading(archive: archive, source: generation, byteCount: size)
        case .absent: throw .noArchive(appID)
        case .problem(let problem): throw .noUsableArchive(appID, current: problem, previous: nil)
        case .sealed: preconditionFailure("a full load never stops at the seal")
        }
    }

    /// What a restore would read for `appID`, from the files' headers and
    /// checksums only (``ArchiveCodec/seal(of:)``): the listing of
    /// `ListApps` and `restored-ctl apps`, without decoding every object.
    /// Throws like ``read(_:)``.
    public func summary(of appID: AppID) throws(ArchiveStoreError) -> ArchiveSummary {
        guard try checkDirectory(directory, action: .read, appID: appID) != nil,
            try checkDirectory(appDirectory(for: appID), action: .read, appID: appID) != nil
        else {
            throw .noArchive(appID)
        }
        var lastComplete: ArchiveCodec.Seal?
        if case .sealed(let seal, _) = load(file(for: appID, generation: .lastComplete), of: appID, sealOnly: true) {
            lastComplete = seal
        }
        let current = load(file(for: appID, generation: .current), of: appID, sealOnly: true)
        if case .sealed(let seal, let size) = current {
            return ArchiveSummary(seal: seal, source: .current, byteCount: size, lastComplete: lastComplete)
        }
        let previous = load(file(for: appID, generation: .previous), of: appID, sealOnly: true)
        if case .sealed(let seal, let size) = previous {
            return ArchiveSummary(seal: seal, source: .previous, byteCount: size, problems: current.problem.map { [$0] } ?? [], lastComplete: lastComplete)
        }
        if current.isAbsent && previous.isAbsent {
            throw .noArchive(appID)
        }
        throw .noUsableArchive(appID, current: current.problem, previous: previous.problem)
    }

    /// The state of every one of `appID`'s archive files, checked in full.
    public func verify(_ appID: AppID) -> ArchiveVerification {
        func status(_ loaded: Loaded) -> ArchiveVerification.Status {
            switch loaded {
            case .absent:
                return .absent
            case .archive(let archive, let size):
                return .ok(generation: archive.generation, size: size)
            case .sealed(let seal, let size):
                return .ok(generation: seal.generation, size: size)
            case .problem(let problem):
                if case .corrupt(let error) = problem.reason {
                    return .corrupt(error)
                }
                return .unusable(problem)
            }
        }
        do {
            guard try checkDirectory(directory, action: .read, appID: appID) != nil,
                try checkDirectory(appDirectory(for: appID), action: .read, appID: appID) != nil
            else {
                return ArchiveVerification(appID: appID, current: .absent, previous: .absent)
            }
        } catch {
            let problem: ArchiveProblem =
                switch error {
                case .unsafeDirectory(let path, let reason):
                    ArchiveProblem(file: path, reason: .unsafeDirectory(reason))
                case .systemCall(let failure):
                    ArchiveProblem(file: failure.path, reason: .unreadable(failure.operation, failure.errno))
                default:
                    ArchiveProblem(file: directory, reason: .unreadable(.lstat, .ioError))
                }
            return ArchiveVerification(appID: appID, current: .unusable(problem), previous: .unusable(problem))
        }
        return ArchiveVerification(
            appID: appID,
            current: status(load(file(for: appID, generation: .current), of: appID)),
            previous: status(load(file(for: appID, generation: .previous), of: appID)),
            lastComplete: status(load(file(for: appID, generation: .lastComplete), of: appID))
        )
    }

    /// The apps that have a directory in the store, sorted; names that are
    /// not valid app ids are ignored.
    public func appIDs() throws(ArchiveStoreError) -> [AppID] {
        guard try checkDirectory(directory, action: .list, appID: nil) != nil else {
            return []
        }
        let names = try perform(.list, nil, .readDirectory, directory) { () throws(Errno) in
            try fileSystem.contentsOfDirectory(directory)
        }
        var appIDs: [AppID] = []
        for name in names {
            guard let appID = try? AppID(name) else { continue }
            guard let status = try? fileSystem.lstat(directory.appending(name)), status.kind == .directory else {
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
        let appDirectory = appDirectory(for: appID)
        guard try checkDirectory(directory, action: .discard, appID: appID) != nil,
            try checkDirectory(appDirectory, action: .discard, appID: appID) != nil
        else {
            return false
        }
        let names = try perform(.discard, appID, .readDirectory, appDirectory) { () throws(Errno) in
            try fileSystem.contentsOfDirectory(appDirectory)
        }
        for name in names where Generation.allCases.contains(where: { $0.fileName == name }) || isLeftover(name) {
            let path = appDirectory.appending(name)
            do {
                try fileSystem.unlink(path)
            } catch where error == .noSuchFileOrDirectory {
                continue
            } catch {
                throw failure(.discard, appID, .unlink, path, error)
            }
        }
        try perform(.discard, appID, .rmdir, appDirectory) { () throws(Errno) in
            try fileSystem.rmdir(appDirectory)
        }
        try perform(.discard, appID, .syncDirectory, directory) { () throws(Errno) in
            try fileSystem.syncDirectory(directory)
        }
        return true
    }

    // MARK: - Installing a file

    /// Writes `bytes` to a temporary file and renames it over the current
    /// file; with `rotating`, the old current file becomes the previous one.
    /// On failure, every file is put back as it was.
    private func install(
        _ bytes: [UInt8],
        of appID: AppID,
        in appDirectory: FilePath,
        action: ArchiveStoreError.Action,
        rotating: Bool,
        target: Generation = .current,
        currentExists: Bool,
        previousExists: Bool
    ) throws(ArchiveStoreError) {
        // Without rotation, `target` is the one file replaced ("current" below).
        let currentFile = appDirectory.appending((rotating ? Generation.current : target).fileName)
        let previousFile = appDirectory.appending(Generation.previous.fileName)

        let (descriptor, temporary) = try perform(action, appID, .createTemporaryFile, appDirectory) {
            () throws(Errno) in
            try fileSystem.createTemporaryFile(in: appDirectory, prefix: Self.leftoverPrefix)
        }
        do {
            try perform(action, appID, .write, temporary) { () throws(Errno) in
                try fileSystem.writeAll(bytes, to: descriptor)
            }
            try perform(action, appID, .fchmod, temporary) { () throws(Errno) in
                try fileSystem.fchmod(descriptor, .ownerReadWrite)
            }
            try perform(action, appID, .fsync, temporary) { () throws(Errno) in
                try fileSystem.fsync(descriptor)
            }
        } catch {
            try? fileSystem.close(descriptor)
            try? fileSystem.unlink(temporary)
            throw error
        }
        do {
            try perform(action, appID, .close, temporary) { () throws(Errno) in
                try fileSystem.close(descriptor)
            }
        } catch {
            try? fileSystem.unlink(temporary)
            throw error
        }

        // Hard links keep the old files reachable until the new state is durable.
        var currentBackup: FilePath?
        var previousBackup: FilePath?
        var installed = false
        var rotated = false
        do {
            if currentExists {
                currentBackup = try makeLink(to: currentFile, in: appDirectory, appID: appID, action: action)
            }
            if rotating && previousExists {
                previousBackup = try makeLink(to: previousFile, in: appDirectory, appID: appID, action: action)
            }
            try perform(action, appID, .rename, temporary, to: currentFile) { () throws(Errno) in
                try fileSystem.rename(temporary, to: currentFile)
            }
            installed = true
            if rotating, let backup = currentBackup {
                try perform(action, appID, .rename, backup, to: previousFile) { () throws(Errno) in
                    try fileSystem.rename(backup, to: previousFile)
                }
                rotated = true
            }
            try perform(action, appID, .syncDirectory, appDirectory) { () throws(Errno) in
                try fileSystem.syncDirectory(appDirectory)
            }
        } catch {
            // Put every name back; each step is best effort.
            if rotated {
                try? fileSystem.rename(previousFile, to: currentFile)
                if let previousBackup {
                    try? fileSystem.rename(previousBackup, to: previousFile)
                }
            } else {
                if installed {
                    if let currentBackup {
                        try? fileSystem.rename(currentBackup, to: currentFile)
                    } else {
                        try? fileSystem.unlink(currentFile)
                    }
                } else {
                    try? fileSystem.unlink(temporary)
                    if let currentBackup { try? fileSystem.unlink(currentBackup) }
                }
                if let previousBackup { try? fileSystem.unlink(previousBackup) }
            }
            try? fileSystem.syncDirectory(appDirectory)
            throw error
        }
        if let previousBackup { try? fileSystem.unlink(previousBackup) }
        if !rotated, let currentBackup { try? fileSystem.unlink(currentBackup) }
    }

    /// Makes a hidden second name for `file` in `appDirectory` and returns it.
    private func makeLink(
        to file: FilePath,
        in appDirectory: FilePath,
        appID: AppID,
        action: ArchiveStoreError.Action
    ) throws(ArchiveStoreError) -> FilePath {
        var attempts = 0
        while true {
            let name = appDirectory.appending(Self.leftoverPrefix + FileSystem.randomSuffix() + Self.leftoverSuffix)
            do {
                try fileSystem.link(file, to: name)
                return name
            } catch where error == .fileExists && attempts < 100 {
                attempts += 1
            } catch {
                throw failure(action, appID, .link, file, error, destination: name)
            }
        }
    }

    /// Removes hidden files left by an interrupted write, best effort.
    private func removeLeftovers(in appDirectory: FilePath) {
        guard let names = try? fileSystem.contentsOfDirectory(appDirectory) else { return }
        for name in names where isLeftover(name) {
            try? fileSystem.unlink(appDirectory.appending(name))
        }
    }

    private func isLeftover(_ name: String) -> Bool {
        name.hasPrefix(Self.leftoverPrefix) && name.hasSuffix(Self.leftoverSuffix)
    }

    // MARK: - Loading a file

    /// What one archive file holds.
    private enum Loaded {
        case absent
        case archive(Archive, size: Int)
        /// An intact file, checked by its header and checksum only.
        case sealed(ArchiveCodec.Seal, size: Int)
        case problem(ArchiveProblem)

        /// The generation of an intact file.
        var generation: UInt64? {
            switch self {
            case .archive(let archive, _): archive.generation
            case .sealed(let seal, _): seal.generation
            case .absent, .problem: nil
            }
        }

        var archive: Archive? {
            if case .archive(let archive, _) = self { return archive }
            return nil
        }

        var problem: ArchiveProblem? {
            if case .problem(let problem) = self { return problem }
            return nil
        }

        var isAbsent: Bool {
            if case .absent = self { return true }
            return false
        }

        /// Whether the file is an archive of a format version this build
        /// does not read: not garbage, so it is kept as the previous generation.
        var isFromNewerFormat: Bool {
            if case .corrupt(.unsupportedVersion)? = problem?.reason { return true }
            return false
        }
    }

    /// Reads and decodes `file`, expecting an archive of `appID`; with
    /// `sealOnly`, checks its header, checksum and app id without decoding
    /// the rest. Never throws.
    private func load(_ file: FilePath, of appID: AppID, sealOnly: Bool = false) -> Loaded {
        func problem(_ reason: ArchiveProblem.Reason) -> Loaded {
            .problem(ArchiveProblem(file: file, reason: reason))
        }
        let descriptor: FileDescriptor
        do {
            descriptor = try fileSystem.open(file, .readOnly, options: [.noFollow, .nonBlocking])
        } catch {
            switch error {
            case .noSuchFileOrDirectory: return .absent
            case .tooManySymbolicLinkLevels: return problem(.notARegularFile)
            default: return problem(.unreadable(.open, error))
            }
        }
        defer { try? fileSystem.close(descriptor) }
        let status: FileSystem.Status
        do {
            status = try fileSystem.fstat(descriptor)
        } catch {
            return problem(.unreadable(.fstat, error))
        }
        guard status.kind == .regular else { return problem(.notARegularFile) }
        guard status.size <= Int64(Self.maximumArchiveSize) else { return problem(.tooLarge(status.size)) }
        let bytes: [UInt8]
        do {
            bytes = try fileSystem.readAll(descriptor)
        } catch {
            return problem(.unreadable(.read, error))
        }
        guard bytes.count <= Self.maximumArchiveSize else { return problem(.tooLarge(Int64(bytes.count))) }
        if sealOnly {
            do {
                let seal = try ArchiveCodec.seal(of: bytes)
                guard seal.appID == appID else { return problem(.otherApp(seal.appID)) }
                return .sealed(seal, size: bytes.count)
            } catch {
                return problem(.corrupt(error))
            }
        }
        let archive: Archive
        do {
            archive = try ArchiveCodec.decode(bytes)
        } catch {
            return problem(.corrupt(error))
        }
        guard archive.appID == appID else { return problem(.otherApp(archive.appID)) }
        return .archive(archive, size: bytes.count)
    }

    // MARK: - Directories

    /// Checks that `path` is a directory of this user and not a symbolic
    /// link; returns its status, or nil when it does not exist.
    private func checkDirectory(
        _ path: FilePath,
        action: ArchiveStoreError.Action,
        appID: AppID?
    ) throws(ArchiveStoreError) -> FileSystem.Status? {
        let status: FileSystem.Status
        do {
            status = try fileSystem.lstat(path)
        } catch where error == .noSuchFileOrDirectory {
            return nil
        } catch {
            throw failure(action, appID, .lstat, path, error)
        }
        switch status.kind {
        case .directory: break
        case .symbolicLink: throw .unsafeDirectory(path, .symbolicLink)
        case .regular, .other: throw .unsafeDirectory(path, .notADirectory)
        }
        guard status.ownerID == fileSystem.effectiveUserID() else {
            throw .unsafeDirectory(path, .ownedByOtherUser(status.ownerID))
        }
        return status
    }

    /// Makes sure the state directory and `appID`'s directory exist, are safe
    /// and have mode 0700; returns the app's directory.
    private func prepareDirectories(
        for appID: AppID,
        action: ArchiveStoreError.Action
    ) throws(ArchiveStoreError) -> FilePath {
        try prepareDirectory(directory, creatingParents: true, action: action, appID: appID)
        let appDirectory = appDirectory(for: appID)
        try prepareDirectory(appDirectory, creatingParents: false, action: action, appID: appID)
        return appDirectory
    }

    private func prepareDirectory(
        _ path: FilePath,
        creatingParents: Bool,
        action: ArchiveStoreError.Action,
        appID: AppID?
    ) throws(ArchiveStoreError) {
        if let status = try checkDirectory(path, action: action, appID: appID) {
            if status.permissions != .ownerReadWriteExecute {
                try restrictPermissions(of: path, action: action, appID: appID)
            }
            return
        }
        if creatingParents {
            var missing: [FilePath] = []
            var ancestor = path.removingLastComponent()
            while !ancestor.components.isEmpty {
                do {
                    _ = try fileSystem.lstat(ancestor)
                    break
                } catch where error == .noSuchFileOrDirectory {
                    missing.append(ancestor)
                    ancestor = ancestor.removingLastComponent()
                } catch {
                    throw failure(action, appID, .lstat, ancestor, error)
                }
            }
            for parent in missing.reversed() {
                try makeDirectory(parent, action: action, appID: appID)
            }
        }
        try makeDirectory(path, action: action, appID: appID)
        _ = try checkDirectory(path, action: action, appID: appID)
    }

    /// Creates `path` with mode 0700 (tolerating a concurrent creation) and
    /// flushes its parent so the new name is durable.
    private func makeDirectory(
        _ path: FilePath,
        action: ArchiveStoreError.Action,
        appID: AppID?
    ) throws(ArchiveStoreError) {
        do {
            try fileSystem.mkdir(path, permissions: .ownerReadWriteExecute)
        } catch where error == .fileExists {
            return
        } catch {
            throw failure(action, appID, .mkdir, path, error)
        }
        try restrictPermissions(of: path, action: action, appID: appID)
        let parent = path.removingLastComponent()
        let parentToSync = parent.isEmpty ? FilePath(".") : parent
        try perform(action, appID, .syncDirectory, parentToSync) { () throws(Errno) in
            try fileSystem.syncDirectory(parentToSync)
        }
    }

    /// Sets the mode of the directory `path` to exactly 0700, whatever the umask.
    private func restrictPermissions(
        of path: FilePath,
        action: ArchiveStoreError.Action,
        appID: AppID?
    ) throws(ArchiveStoreError) {
        let descriptor = try perform(action, appID, .open, path) { () throws(Errno) in
            try fileSystem.open(path, .readOnly, options: [.directory, .noFollow])
        }
        do {
            try perform(action, appID, .fchmod, path) { () throws(Errno) in
                try fileSystem.fchmod(descriptor, .ownerReadWriteExecute)
            }
        } catch {
            try? fileSystem.close(descriptor)
            throw error
        }
        try perform(action, appID, .close, path) { () throws(Errno) in
            try fileSystem.close(descriptor)
        }
    }

    // MARK: - Errors

    /// Runs `body`, turning its errno into a store error about `path`.
    private func perform<Value>(
        _ action: ArchiveStoreError.Action,
        _ appID: AppID?,
        _ operation: FileSystem.Operation,
        _ path: FilePath,
        to destination: FilePath? = nil,
        _ body: () throws(Errno) -> Value
    ) throws(ArchiveStoreError) -> Value {
        do {
            return try body()
        } catch {
            throw failure(action, appID, operation, path, error, destination: destination)
        }
    }

    private func failure(
        _ action: ArchiveStoreError.Action,
        _ appID: AppID?,
        _ operation: FileSystem.Operation,
        _ path: FilePath,
        _ errno: Errno,
        destination: FilePath? = nil
    ) -> ArchiveStoreError {
        .systemCall(
            ArchiveStoreError.SystemCallFailure(
                action: action,
                appID: appID,
                operation: operation,
                path: path,
                destination: destination,
                errno: errno,
                directory: directory
            )
        )
    }
}
