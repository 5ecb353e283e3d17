import SystemPackage

/// The atomic, durable replacement of one archive file in an app's
/// directory, with the rotation of the file it replaces, and the rollback
/// that puts every name back when a step fails.
///
/// The new bytes go to a hidden temporary file (`.archive.*.tmp`), which is
/// written, set to mode 0600 and flushed; then it is renamed over the
/// target, the old target renamed to the previous generation when rotating,
/// and the directory flushed. Hard links keep the old files reachable until
/// the new state is durable, so a failure at any step renames each old file
/// back and throws. Every call is made in the directory held open
/// (``ArchiveDirectory``).
struct ArchiveFileReplacement {
    /// The first characters of the hidden files a replacement makes.
    static let leftoverPrefix = ".archive."
    /// The last characters of the hidden files a replacement makes.
    static let leftoverSuffix = ".tmp"

    /// The directory the files are in.
    let directory: ArchiveDirectory

    /// Writes `bytes` to a temporary file and renames it over `target`;
    /// with `rotating`, the old target becomes `previous`. `targetExists`
    /// and `previousExists` say which files there are to keep. On failure,
    /// every file is put back as it was.
    func install(
        _ bytes: [UInt8],
        over target: String,
        rotatingTo previous: String?,
        targetExists: Bool,
        previousExists: Bool
    ) throws(ArchiveStoreError) {
        let temporary = try writeTemporaryFile(bytes)

        // Hard links keep the old files reachable until the new state is durable.
        var targetBackup: String?
        var previousBackup: String?
        var installed = false
        var rotated = false
        do {
            if targetExists {
                targetBackup = try makeLink(to: target)
            }
            if let previous, previousExists {
                previousBackup = try makeLink(to: previous)
            }
            try directory.rename(temporary, to: target)
            installed = true
            if let previous, let backup = targetBackup {
                try directory.rename(backup, to: previous)
                rotated = true
            }
            try directory.sync()
        } catch {
            // Put every name back; each step is best effort.
            if rotated, let previous {
                try? directory.rename(previous, to: target)
                if let previousBackup {
                    try? directory.rename(previousBackup, to: previous)
                }
            } else {
                if installed {
                    if let targetBackup {
                        try? directory.rename(targetBackup, to: target)
                    } else {
                        _ = try? directory.unlink(target)
                    }
                } else {
                    _ = try? directory.unlink(temporary)
                    if let targetBackup { _ = try? directory.unlink(targetBackup) }
                }
                if let previousBackup { _ = try? directory.unlink(previousBackup) }
            }
            try? directory.sync()
            throw error
        }
        if let previousBackup { _ = try? directory.unlink(previousBackup) }
        if !rotated, let targetBackup { _ = try? directory.unlink(targetBackup) }
    }

    /// Removes hidden files left by an interrupted replacement, best effort.
    func removeLeftovers() {
        guard let names = try? directory.names() else { return }
        for name in names where Self.isLeftover(name) {
            _ = try? directory.unlink(name)
        }
    }

    /// Whether `name` is a hidden file a replacement makes.
    static func isLeftover(_ name: String) -> Bool {
        name.hasPrefix(leftoverPrefix) && name.hasSuffix(leftoverSuffix)
    }

    /// Writes `bytes` to a new temporary file, mode 0600, flushed and
    /// closed; returns its name. On failure, the file is gone.
    private func writeTemporaryFile(_ bytes: [UInt8]) throws(ArchiveStoreError) -> String {
        let (descriptor, temporary) = try directory.createTemporaryFile(prefix: Self.leftoverPrefix)
        do {
            try directory.perform(.write, on: temporary) { fileSystem throws(Errno) in try fileSystem.writeAll(bytes, to: descriptor) }
            try directory.perform(.fchmod, on: temporary) { fileSystem throws(Errno) in try fileSystem.fchmod(descriptor, .ownerReadWrite) }
            try directory.perform(.fsync, on: temporary) { fileSystem throws(Errno) in try fileSystem.fsync(descriptor) }
        } catch {
            try? directory.context.fileSystem.close(descriptor)
            _ = try? directory.unlink(temporary)
            throw error
        }
        do {
            try directory.perform(.close, on: temporary) { fileSystem throws(Errno) in try fileSystem.close(descriptor) }
        } catch {
            _ = try? directory.unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Makes a hidden second name for the file `name` and returns it.
    private func makeLink(to name: String) throws(ArchiveStoreError) -> String {
        var attempts = 0
        while true {
            let link = Self.leftoverPrefix + FileSystem.randomSuffix() + Self.leftoverSuffix
            do {
                try directory.context.fileSystem.link(name, to: link, in: directory.directory)
                return link
            } catch where error == .fileExists && attempts < 100 {
                attempts += 1
            } catch {
                throw directory.failure(.link, name, error, destination: link)
            }
        }
    }
}
