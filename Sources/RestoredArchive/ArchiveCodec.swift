public import RestoredState
/// The archive file format: ``Archive`` to bytes and back.
///
/// Layout, little-endian:
/// - header, 40 bytes: signature `89 52 53 54 52 44 0D 0A` (`\x89RSTRD\r\n`),
///   format version u16 (1; 2 for a partial archive; 3 for one that carries
///   objects over), header length u16 (40), flags u32 (bit 0: ignores
///   snapshot; bit 1: partial, set in version 2 and maybe 3; bit 2: carries
///   objects over, set exactly in version 3), restore attempts u32,
///   generation u64, payload length u64,
///   reserved u32 (0);
/// - payload: strings and byte blobs are a LEB128 length then the bytes; in
///   order: app id, app version, system version, timestamp (zigzag LEB128),
///   plugin, app state, object count, then per object: component count, per
///   component the identifier and the position (0: none, n + 1: position n),
///   class name, restoration class (empty: none), kind u8, state; then a
///   snapshot presence byte (0 or 1) and, if 1, media type and data; when
///   the partial flag is set, the objects the save left out: their count
///   (at least 1), then per object its path (as above) and the reason;
///   when the carry flag is set, the objects carried over from the archive
///   before: their count (at least 1), then per object its path and the
///   time it was saved (zigzag LEB128);
/// - trailer: CRC-32C of every byte before it, u32.
///
/// Decoding never traps on any input (R16): every read is bounds-checked and
/// every problem is an ``ArchiveError``. An empty restoration class reads back
/// as none.
public enum ArchiveCodec {
    /// The format version of a complete archive, which every build reads.
    public static let formatVersion: UInt16 = 1
    /// The format version of a partial archive: version 1 with the list of
    /// the objects its save left out. A build older than it keeps such a
    /// file as one of a newer format (the previous generation) instead of
    /// replacing it as corrupt.
    public static let partialFormatVersion: UInt16 = 2
    /// The format version of an archive that carries objects over from the
    /// one before (``CarriedObject``), partial or not. Builds older than it
    /// keep such a file as one of a newer format, as for version 2.
    public static let carryingFormatVersion: UInt16 = 3
    /// The size of the header, in bytes.
    public static let headerLength = 40
    /// The size of the trailer (the checksum), in bytes.
    public static let trailerLength = 4
    /// The signature that starts every archive file.
    public static let signature: [UInt8] = [0x89, 0x52, 0x53, 0x54, 0x52, 0x44, 0x0D, 0x0A]

    /// Flags bit: the archive ignores its snapshot on the next restore.
    private static let ignoresSnapshotFlag: UInt32 = 1
    /// Flags bit: the save left objects out; the list ends the payload.
    private static let partialFlag: UInt32 = 2
    /// Flags bit: the save carried objects over; their list ends the payload.
    private static let carryFlag: UInt32 = 4
    /// Every flag this build knows; a file with another set is refused.
    private static let knownFlags = ignoresSnapshotFlag | partialFlag | carryFlag
    /// The smallest encoding of an object: five empty fields.
    private static let minimumObjectLength = 5
    /// The smallest encoding of a path component: empty identifier, no position.
    private static let minimumComponentLength = 2

    // MARK: - Encoding

    /// The bytes of `archive` in the archive file format.
    public static func encode(_ archive: Archive) -> [UInt8] {
        var payloadLength = 0
        payloadLength += stringLength(archive.appID.rawValue)
        payloadLength += stringLength(archive.appVersion)
        payloadLength += stringLength(archive.systemVersion)
        payloadLength += varintLength(zigzag(archive.timestamp))
        payloadLength += stringLength(archive.plugin)
        payloadLength += blobLength(archive.appState)
        payloadLength += varintLength(UInt64(archive.objects.count))
        // Indexing through buffers borrows the objects instead of copying
        // (retaining and releasing) each one.
        archive.objects.withUnsafeBufferPointer { objects in
            for index in objects.indices {
                payloadLength += varintLength(UInt64(objects[index].path.components.count))
                objects[index].path.components.withUnsafeBufferPointer { components in
                    for position in components.indices {
                        payloadLength += stringLength(components[position].identifier)
                        payloadLength += varintLength(positionCode(components[position].position))
                    }
                }
                payloadLength += stringLength(objects[index].className)
                payloadLength += objects[index].restorationClass.map(stringLength) ?? 1
                payloadLength += 1
                payloadLength += varintLength(UInt64(objects[index].state.count)) + objects[index].state.count
            }
        }
        payloadLength += 1
        if let snapshot = archive.snapshot {
            payloadLength += stringLength(snapshot.mediaType)
            payloadLength += blobLength(snapshot.data)
        }
        if archive.isPartial {
            payloadLength += varintLength(UInt64(archive.droppedObjects.count))
            for dropped in archive.droppedObjects {
                payloadLength += pathLength(dropped.path) + stringLength(dropped.reason)
            }
        }
        let carries = !archive.carriedObjects.isEmpty
        if carries {
            payloadLength += varintLength(UInt64(archive.carriedObjects.count))
            for carried in archive.carriedObjects {
                payloadLength += pathLength(carried.path) + varintLength(zigzag(carried.since))
            }
        }
        let total = headerLength + payloadLength + trailerLength

        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initializedCount in
            var writer = ByteWriter(buffer: UnsafeMutableRawBufferPointer(buffer))
            writer.append(signature)
            writer.appendLittleEndian(carries ? carryingFormatVersion : archive.isPartial ? partialFormatVersion : formatVersion)
            writer.appendLittleEndian(UInt16(headerLength))
            writer.appendLittleEndian(
                (archive.ignoresSnapshot ? ignoresSnapshotFlag : 0) | (archive.isPartial ? partialFlag : 0) | (carries ? carryFlag : 0)
            )
            writer.appendLittleEndian(archive.restoreAttempts)
            writer.appendLittleEndian(archive.generation)
            writer.appendLittleEndian(UInt64(payloadLength))
            writer.appendLittleEndian(UInt32(0))

            writer.appendString(archive.appID.rawValue)
            writer.appendString(archive.appVersion)
            writer.appendString(archive.systemVersion)
            writer.appendVarint(zigzag(archive.timestamp))
            writer.appendString(archive.plugin)
            writer.appendBlob(archive.appState)
            writer.appendVarint(UInt64(archive.objects.count))
            archive.objects.withUnsafeBufferPointer { objects in
                for index in objects.indices {
                    writer.appendVarint(UInt64(objects[index].path.components.count))
                    objects[index].path.components.withUnsafeBufferPointer { components in
                        for position in components.indices {
                            writer.appendString(components[position].identifier)
                            writer.appendVarint(positionCode(components[position].position))
                        }
                    }
                    writer.appendString(objects[index].className)
                    if let restorationClass = objects[index].restorationClass {
                        writer.appendString(restorationClass)
                    } else {
                        writer.appendByte(0)
                    }
                    writer.appendByte(objects[index].kind.rawValue)
                    objects[index].state.withUnsafeBytes { state in
                        writer.appendVarint(UInt64(state.count))
                        writer.append(state)
                    }
                }
            }
            if let snapshot = archive.snapshot {
                writer.appendByte(1)
                writer.appendString(snapshot.mediaType)
                writer.appendBlob(snapshot.data)
            } else {
                writer.appendByte(0)
            }
            if archive.isPartial {
                writer.appendVarint(UInt64(archive.droppedObjects.count))
                for dropped in archive.droppedObjects {
                    writer.appendPath(dropped.path)
                    writer.appendString(dropped.reason)
                }
            }
            if carries {
                writer.appendVarint(UInt64(archive.carriedObjects.count))
                for carried in archive.carriedObjects {
                    writer.appendPath(carried.path)
                    writer.appendVarint(zigzag(carried.since))
                }
            }
            let checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: writer.buffer[..<writer.offset]))
            writer.appendLittleEndian(checksum)
            precondition(writer.offset == total, "archive encoding length mismatch")
            initializedCount = total
        }
    }

    // MARK: - Decoding

    /// Decodes an archive file's bytes, checking every byte (R16).
    public static func decode(_ bytes: [UInt8]) throws(ArchiveError) -> Archive {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ArchiveError) -> Archive in try scan(buffer, building: true).archive! }
        }
        return try result.get()
    }

    /// Decodes an archive file's bytes, checking every byte (R16).
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) -> Archive {
        let result = bytes.withMemoryRebound(to: UInt8.self) { buffer in
            Result { () throws(ArchiveError) -> Archive in try scan(buffer, building: true).archive! }
        }
        return try result.get()
    }

    /// Checks an archive file's bytes exactly as ``decode(_:)`` does, every
    /// byte (R16), without building the archive: no string or object is
    /// allocated. For an archive that is written as it came (from a plugin
    /// host) and read back only at the next restore.
    public static func check(_ bytes: [UInt8]) throws(ArchiveError) -> Seal {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ArchiveError) -> Seal in try scan(buffer, building: false).seal }
        }
        return try result.get()
    }

    /// What a file's header and checksum say, with the payload's first
    /// fields, without decoding the objects.
    public struct Seal: Hashable, Sendable {
        /// The generation number in the header.
        public var generation: UInt64
        /// The app id, the payload's first field.
        public var appID: AppID
        /// The header's ignore-snapshot flag.
        public var ignoresSnapshot: Bool
        /// The header's restore-attempt counter (R15).
        public var restoreAttempts: UInt32
        /// When it was preserved: nanoseconds since 1970 (0 when not read).
        public var timestamp: Int64 = 0
        /// The header's partial flag: the save left objects out.
        public var isPartial = false
        /// The header's carry flag: the save carried objects over from the
        /// archive before, which restored fills in before it writes it.
        public var carriesObjects = false
    }

    /// Whether the header of `bytes`, an archive already checked
    /// (``check(_:)``), carries the partial flag: the save left objects out.
    public static func isMarkedPartial(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= headerLength else { return false }
        return bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self)) } & partialFlag != 0
    }

    /// Whether the header of `bytes`, an archive already checked
    /// (``check(_:)``), carries the carry flag: objects to fill in from the
    /// archive before (``Archive/fillingCarriedObjects(from:)``).
    public static func carriesObjects(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= headerLength else { return false }
        return bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self)) } & carryFlag != 0
    }

    /// The parts of `bytes`, an archive as ``encode(_:)`` wrote it, that
    /// hold its content as ``Archive/hasSameContent(as:)`` sees it: the
    /// format version and the flags (bytes 8 to 15 of the header), the app
    /// id and version, and the payload after the system version and the
    /// timestamp, without the checksum. What ``ArchiveFingerprint`` reads;
    /// nil when `bytes` does not read as an archive.
    public static func contentRanges(of bytes: UnsafeRawBufferPointer) -> [Range<Int>]? {
        let payloadEnd = bytes.count - trailerLength
        guard payloadEnd >= headerLength else { return nil }
        var cursor = ByteCursor<ArchiveError>(bytes, from: headerLength, to: payloadEnd)
        do throws(ArchiveError) {
            _ = try cursor.readBlobRange()  // the app id
            _ = try cursor.readBlobRange()  // the app version
            let identity = headerLength ..< cursor.offset
            _ = try cursor.readBlobRange()  // the system version
            _ = try cursor.readVarint()  // the timestamp
            return [8 ..< 16, identity, cursor.offset ..< payloadEnd]
        } catch {
            return nil
        }
    }

    /// `bytes`, a complete archive, as `generation` with no restore attempt
    /// counted: the two header fields rewritten and the checksum computed
    /// again; nothing else changes. For writing an archive that arrived
    /// encoded (from a plugin host) without encoding it again; check it with
    /// ``check(_:)`` first.
    public static func restamped(_ bytes: [UInt8], generation: UInt64) -> [UInt8] {
        restamped(bytes, restoreAttempts: 0, generation: generation)
    }

    /// `bytes`, a complete archive, with `restoreAttempts` in its header
    /// (R15) and the checksum computed again; nothing else changes. For
    /// counting a restore in an archive read as it is (``EncodedArchive``).
    public static func restamped(_ bytes: [UInt8], restoreAttempts: UInt32) -> [UInt8] {
        precondition(bytes.count >= headerLength + trailerLength, "not an archive")
        let generation = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 20, as: UInt64.self)) }
        return restamped(bytes, restoreAttempts: restoreAttempts, generation: generation)
    }

    private static func restamped(_ bytes: [UInt8], restoreAttempts: UInt32, generation: UInt64) -> [UInt8] {
        precondition(bytes.count >= headerLength + trailerLength, "not an archive")
        var copy = bytes
        copy.withUnsafeMutableBytes { buffer in
            buffer.storeBytes(of: restoreAttempts.littleEndian, toByteOffset: 16, as: UInt32.self)
            buffer.storeBytes(of: generation.littleEndian, toByteOffset: 20, as: UInt64.self)
            let end = buffer.count - trailerLength
            let checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[..<end]))
            buffer.storeBytes(of: checksum.littleEndian, toByteOffset: end, as: UInt32.self)
        }
        return copy
    }

    /// Checks an archive file's header, length and checksum and reads its
    /// header fields, app id and timestamp, leaving the rest of the payload
    /// unread: enough to know the file is intact and to list it, at a
    /// fraction of ``decode(_:)``'s cost.
    public static func seal(of bytes: [UInt8]) throws(ArchiveError) -> Seal {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ArchiveError) -> Seal in
                var (seal, _, _, reader) = try checkEnvelope(buffer)
                _ = try reader.readString()  // app version
                _ = try reader.readString()  // system version
                seal.timestamp = unzigzag(try reader.readVarint())
                return seal
            }
        }
        return try result.get()
    }

    /// Checks everything but the payload after the app id; returns the seal,
    /// the header's flags and restore attempts, and a reader past the app id.
    private static func checkEnvelope(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) throws(ArchiveError) -> (seal: Seal, flags: UInt32, restoreAttempts: UInt32, reader: ByteCursor<ArchiveError>) {
        let raw = UnsafeRawBufferPointer(bytes)
        let count = bytes.count
        guard count >= signature.count, bytes.prefix(signature.count).elementsEqual(signature) else {
            throw .notAnArchive
        }
        guard count >= 10 else { throw .lengthMismatch(expected: nil, actual: count) }
        let version = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        guard version == formatVersion || version == partialFormatVersion || version == carryingFormatVersion else {
            throw .unsupportedVersion(version)
        }
        guard count >= headerLength else { throw .lengthMismatch(expected: nil, actual: count) }
        let declaredHeaderLength = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 10, as: UInt16.self))
        guard declaredHeaderLength == UInt16(headerLength) else {
            throw .invalidHeader(field: "header length", value: UInt64(declaredHeaderLength))
        }
        let flags = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        let restoreAttempts = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        let generation = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 20, as: UInt64.self))
        let payloadLength = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 28, as: UInt64.self))
        let reserved = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 36, as: UInt32.self))

        let (withHeader, overflow1) = payloadLength.addingReportingOverflow(UInt64(headerLength))
        let (expected, overflow2) = withHeader.addingReportingOverflow(UInt64(trailerLength))
        guard !overflow1, !overflow2, expected == UInt64(count) else {
            throw .lengthMismatch(expected: overflow1 || overflow2 ? UInt64.max : expected, actual: count)
        }
        let checksumOffset = count - trailerLength
        let stored = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: checksumOffset, as: UInt32.self))
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[..<checksumOffset]))
        guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
        // Version 1 has neither list, 2 the omissions only, 3 the carried
        // objects and maybe the omissions.
        let flagsMatchVersion = switch version {
        case formatVersion: flags & (partialFlag | carryFlag) == 0
        case partialFormatVersion: flags & partialFlag != 0 && flags & carryFlag == 0
        default: flags & carryFlag != 0
        }
        guard flags & ~knownFlags == 0, flagsMatchVersion else {
            throw .invalidHeader(field: "flags", value: UInt64(flags))
        }
        guard reserved == 0 else { throw .invalidHeader(field: "reserved", value: UInt64(reserved)) }

        var reader = ByteCursor<ArchiveError>(raw, from: headerLength, to: checksumOffset)
        let appIDString = try reader.readString()
        let appID: AppID
        do {
            appID = try AppID(appIDString)
        } catch {
            throw .invalidAppID(error)
        }
        var seal = Seal(generation: generation, appID: appID, ignoresSnapshot: flags & ignoresSnapshotFlag != 0, restoreAttempts: restoreAttempts)
        seal.isPartial = flags & partialFlag != 0
        seal.carriesObjects = flags & carryFlag != 0
        return (seal, flags, restoreAttempts, reader)
    }

    /// Reads every field of `bytes`, checking each; builds the archive only
    /// when `building` (without, strings are validated and skipped).
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, building: Bool) throws(ArchiveError) -> (seal: Seal, archive: Archive?) {
        var (seal, flags, restoreAttempts, reader) = try checkEnvelope(bytes)
        let appID = seal.appID
        let generation = seal.generation
        let appVersion = try reader.readString(keeping: building)
        let systemVersion = try reader.readString(keeping: building)
        let timestamp = unzigzag(try reader.readVarint())
        let plugin = try reader.readString(keeping: building)
        let appState = try reader.readBlob(keeping: building)

        let objectCount = try reader.readCount(minimumElementLength: minimumObjectLength)
        var objects: [ArchivedObject] = []
        if building { objects.reserveCapacity(objectCount) }
        for _ in 0..<objectCount {
            let components = try readComponents(&reader, building: building)
            let className = try reader.readString(keeping: building)
            let restorationClass = try reader.readString(keeping: building)
            let kindOffset = reader.offset
            let kindByte = try reader.readByte()
            guard let kind = ArchivedObject.Kind(rawValue: kindByte) else {
                throw .unknownObjectKind(kindByte, offset: kindOffset)
            }
            let state = try reader.readBlob(keeping: building)
            guard building else { continue }
            objects.append(
                ArchivedObject(
                    path: ObjectPath(components),
                    className: className,
                    restorationClass: restorationClass.isEmpty ? nil : restorationClass,
                    kind: kind,
                    state: state
                )
            )
        }

        let presenceOffset = reader.offset
        let presence = try reader.readByte()
        var snapshot: Snapshot?
        switch presence {
        case 0:
            snapshot = nil
        case 1:
            let mediaType = try reader.readString(keeping: building)
            let data = try reader.readBlob(keeping: building)
            snapshot = Snapshot(mediaType: mediaType, data: data)
        default:
            throw .invalidPresence(presence, offset: presenceOffset)
        }
        var droppedObjects: [OmittedObject] = []
        if flags & partialFlag != 0 {
            let countOffset = reader.offset
            let droppedCount = try reader.readCount(minimumElementLength: 2)
            guard droppedCount > 0 else { throw .emptyOmissionList(offset: countOffset) }
            for _ in 0..<droppedCount {
                let components = try readComponents(&reader, building: building)
                let reason = try reader.readString(keeping: building)
                if building { droppedObjects.append(OmittedObject(path: ObjectPath(components), reason: reason)) }
            }
        }
        var carriedObjects: [CarriedObject] = []
        if flags & carryFlag != 0 {
            let countOffset = reader.offset
            let carriedCount = try reader.readCount(minimumElementLength: 2)
            guard carriedCount > 0 else { throw .emptyCarryList(offset: countOffset) }
            for _ in 0..<carriedCount {
                let components = try readComponents(&reader, building: building)
                let since = unzigzag(try reader.readVarint())
                if building { carriedObjects.append(CarriedObject(path: ObjectPath(components), since: since)) }
            }
        }
        guard reader.offset == reader.end else {
            throw .trailingPayloadBytes(count: reader.end - reader.offset)
        }

        seal.timestamp = timestamp
        guard building else { return (seal, nil) }
        return (seal, Archive(
            appID: appID,
            appVersion: appVersion,
            systemVersion: systemVersion,
            timestamp: timestamp,
            plugin: plugin,
            generation: generation,
            ignoresSnapshot: flags & ignoresSnapshotFlag != 0,
            restoreAttempts: restoreAttempts,
            appState: appState,
            objects: objects,
            snapshot: snapshot,
            droppedObjects: droppedObjects,
            carriedObjects: carriedObjects
        ))
    }

    /// A path's components (their count, then each identifier and position
    /// code); empty when not `building`.
    private static func readComponents(
        _ reader: inout ByteCursor<ArchiveError>, building: Bool
    ) throws(ArchiveError) -> [ObjectPath.Component] {
        let componentCount = try reader.readCount(minimumElementLength: minimumComponentLength)
        var components: [ObjectPath.Component] = []
        if building { components.reserveCapacity(componentCount) }
        for _ in 0..<componentCount {
            let identifier = try reader.readString(keeping: building)
            let positionOffset = reader.offset
            let code = try reader.readVarint()
            var position: Int64?
            if code != 0 {
                guard code - 1 <= UInt64(Int64.max) else { throw .invalidPosition(offset: positionOffset) }
                position = Int64(code - 1)
            }
            if building { components.append(ObjectPath.Component(identifier: identifier, position: position)) }
        }
        return components
    }

    // MARK: - Helpers

    private static func pathLength(_ path: ObjectPath) -> Int {
        var length = varintLength(UInt64(path.components.count))
        for component in path.components {
            length += stringLength(component.identifier) + varintLength(positionCode(component.position))
        }
        return length
    }

    private static func varintLength(_ value: UInt64) -> Int {
        (64 - (value | 1).leadingZeroBitCount + 6) / 7
    }

    private static func stringLength(_ string: String) -> Int {
        let count = string.utf8.count
        return varintLength(UInt64(count)) + count
    }

    private static func blobLength(_ blob: [UInt8]) -> Int {
        varintLength(UInt64(blob.count)) + blob.count
    }

    private static func positionCode(_ position: Int64?) -> UInt64 {
        guard let position else { return 0 }
        precondition(position >= 0, "an object path position cannot be negative")
        return UInt64(position) + 1
    }

    private static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    private static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }
}

/// Appends to a buffer of exactly the size computed beforehand.
private struct ByteWriter {
    let buffer: UnsafeMutableRawBufferPointer
    var offset = 0

    init(buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    private mutating func reserve(_ count: Int) -> Int {
        precondition(count <= buffer.count - offset, "archive encoding overflow")
        let start = offset
        offset += count
        return start
    }

    mutating func appendByte(_ byte: UInt8) {
        buffer[reserve(1)] = byte
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let start = reserve(bytes.count)
        UnsafeMutableRawBufferPointer(rebasing: buffer[start..<(start + bytes.count)]).copyMemory(from: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        let start = reserve(MemoryLayout<T>.size)
        buffer.storeBytes(of: value.littleEndian, toByteOffset: start, as: T.self)
    }

    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            appendByte(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        appendByte(UInt8(value))
    }

    mutating func appendString(_ string: String) {
        let utf8 = string.utf8
        if let done: Void = utf8.withContiguousStorageIfAvailable({ bytes in
            appendVarint(UInt64(bytes.count))
            append(UnsafeRawBufferPointer(bytes))
        }) {
            return done
        }
        appendVarint(UInt64(utf8.count))
        for byte in utf8 {
            appendByte(byte)
        }
    }

    mutating func appendPath(_ path: ObjectPath) {
        appendVarint(UInt64(path.components.count))
        for component in path.components {
            appendString(component.identifier)
            appendVarint(component.position.map { UInt64($0) + 1 } ?? 0)
        }
    }

    mutating func appendBlob(_ blob: [UInt8]) {
        appendVarint(UInt64(blob.count))
        append(blob)
    }
}

extension ArchiveError: ByteCursorFailure {
    /// The payload ends before `length` more bytes.
    public static func truncated(at offset: Int, length: UInt64) -> ArchiveError {
        .lengthBeyondEnd(offset: offset, length: length)
    }

    /// A varint longer than 64 bits.
    public static func varintOverflow(at offset: Int) -> ArchiveError {
        .varintOverflow(offset: offset)
    }

    /// A string that is not UTF-8.
    public static func invalidUTF8(at offset: Int) -> ArchiveError {
        .invalidUTF8(offset: offset)
    }
}

/// The archive payload's reads: strings and blobs that are checked and,
/// when not `keeping`, skipped without allocating.
extension ByteCursor where Failure == ArchiveError {
    /// A string; with `keeping` false, checked and skipped ("" is returned).
    mutating func readString(keeping: Bool) throws(ArchiveError) -> String {
        guard keeping else {
            _ = try readStringRange()
            return ""
        }
        return try readString()
    }

    /// A byte blob; with `keeping` false, skipped ([] is returned).
    mutating func readBlob(keeping: Bool = true) throws(ArchiveError) -> [UInt8] {
        let range = try readBlobRange()
        guard keeping else { return [] }
        return Array(UnsafeRawBufferPointer(rebasing: base[range]))
    }
}
