import SystemPackage

/// What one archive file of an app's directory holds, as loaded by
/// ``ArchiveStore``: nothing, an archive (decoded, or checked by its seal
/// only), or the problem that makes it unusable.
enum StoredArchiveFile {
    case absent
    case archive(Archive, size: Int)
    /// An intact file, checked in full and kept as its bytes.
    case encoded(EncodedArchive, size: Int)
    /// An intact file, checked by its header and checksum only.
    case sealed(ArchiveCodec.Seal, size: Int)
    case problem(ArchiveProblem)

    /// How far a file is read.
    enum Depth {
        /// Its header, checksum and app id: whether it is intact.
        case seal
        /// Every byte checked as a decode does, nothing built (``EncodedArchive``).
        case check
        /// Decoded into an ``Archive``.
        case decode
    }

    /// Reads the file `name` of `directory`, expecting an archive of
    /// `appID`, as far as `depth` says. Never throws, never traps on the
    /// file's contents (R16).
    static func load(_ name: String, in directory: ArchiveDirectory, of appID: AppID, depth: Depth = .decode) -> StoredArchiveFile {
        let file = directory.path(of: name)
        func problem(_ reason: ArchiveProblem.Reason) -> StoredArchiveFile {
            .problem(ArchiveProblem(file: file, reason: reason))
        }
        let fileSystem = directory.context.fileSystem
        let descriptor: FileDescriptor
        do {
            descriptor = try directory.openFileForReading(name)
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
        guard status.size <= Int64(ArchiveStore.maximumArchiveSize) else { return problem(.tooLarge(status.size)) }
        let bytes: [UInt8]
        do {
            bytes = try fileSystem.readAll(descriptor)
        } catch {
            return problem(.unreadable(.read, error))
        }
        guard bytes.count <= ArchiveStore.maximumArchiveSize else { return problem(.tooLarge(Int64(bytes.count))) }
        switch depth {
        case .seal:
            do {
                let seal = try ArchiveCodec.seal(of: bytes)
                guard seal.appID == appID else { return problem(.otherApp(seal.appID)) }
                return .sealed(seal, size: bytes.count)
            } catch {
                return problem(.corrupt(error))
            }
        case .check:
            do {
                let encoded = try EncodedArchive(checking: bytes)
                guard encoded.appID == appID else { return problem(.otherApp(encoded.appID)) }
                return .encoded(encoded, size: bytes.count)
            } catch {
                return problem(.corrupt(error))
            }
        case .decode:
            break
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

    /// The generation of an intact file.
    var generation: UInt64? {
        switch self {
        case .archive(let archive, _): archive.generation
        case .encoded(let encoded, _): encoded.generation
        case .sealed(let seal, _): seal.generation
        case .absent, .problem: nil
        }
    }

    /// The decoded archive, if the file was loaded in full and is usable.
    var archive: Archive? {
        if case .archive(let archive, _) = self { return archive }
        return nil
    }

    /// Why the file cannot be used, if it is there and unusable.
    var problem: ArchiveProblem? {
        if case .problem(let problem) = self { return problem }
        return nil
    }

    /// Whether the file is intact (as far as it was read).
    var isUsable: Bool {
        switch self {
        case .archive, .encoded, .sealed: true
        case .absent, .problem: false
        }
    }

    /// Whether there is no such file.
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
