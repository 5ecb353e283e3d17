public import SystemPackage

/// Reads the ELF notes of a file (its `PT_NOTE` segments) without loading
/// it: what an image says of itself before any of its code runs.
///
/// Only the images this machine runs are read: 64-bit, little-endian. Every
/// offset and size is checked against the file's size before anything is
/// read or allocated for it, and the program header table is at most
/// ``maximumProgramHeaders`` entries of the ELF64 size, so a truncated or
/// hostile file gives no notes (or fewer), never a read past its end nor an
/// allocation its header asks for.
public struct ELFNoteReader: Sendable {
    /// One note: its owner, its type and its description.
    public struct Note: Hashable, Sendable {
        /// The owner (`GNU`, `restored` ...), without its NUL.
        public var owner: String
        /// The owner's type of note.
        public var type: UInt32
        /// The description, as it lies in the file.
        public var description: [UInt8]
    }

    /// The most notes' bytes read from one file: far more than any image has.
    static let maximumNoteBytes = 1 << 20
    /// The most program headers read: far more than any image has.
    static let maximumProgramHeaders = 4096
    /// The size of an ELF64 program header.
    static let programHeaderSize = 56

    /// The file read.
    public let file: FilePath

    /// A reader of `file`.
    public init(file: FilePath) {
        self.file = file
    }

    /// The notes of the file's note segments, in file order; empty for a file
    /// that is not a 64-bit little-endian ELF image.
    public func notes() throws(Errno) -> [Note] {
        let descriptor = try Self.errno { try FileDescriptor.open(file, .readOnly, options: [.closeOnExec]) }
        defer { try? descriptor.close() }
        var status = stat()
        guard fstat(descriptor.rawValue, &status) == 0 else { throw Errno(rawValue: Glibc.errno) }
        let fileSize = Int(status.st_size)
        /// Whether `size` bytes at `offset` lie inside the file.
        func inFile(_ offset: UInt64, _ size: UInt64) -> Bool {
            offset <= UInt64(fileSize) && size <= UInt64(fileSize) - offset
        }
        let header = try read(descriptor, at: 0, count: min(64, fileSize))
        guard header.count == 64, header[0 ..< 4].elementsEqual([0x7F, 0x45, 0x4C, 0x46]),
              header[4] == 2, header[5] == 1 else { return [] }
        let programHeaders = header.uint64(at: 0x20)
        let entrySize = Int(header.uint16(at: 0x36))
        let count = Int(header.uint16(at: 0x38))
        guard entrySize == Self.programHeaderSize, count > 0, count <= Self.maximumProgramHeaders,
              inFile(programHeaders, UInt64(entrySize * count)) else { return [] }
        let table = try read(descriptor, at: Int(programHeaders), count: entrySize * count)
        guard table.count == entrySize * count else { return [] }
        var notes: [Note] = []
        var budget = Self.maximumNoteBytes
        for index in 0 ..< count {
            let entry = index * entrySize
            guard table.uint32(at: entry) == 4 /* PT_NOTE */ else { continue }
            let offset = table.uint64(at: entry + 8)
            let fileBytes = table.uint64(at: entry + 32)
            let alignment = table.uint64(at: entry + 48) == 8 ? 8 : 4
            guard inFile(offset, fileBytes), fileBytes <= UInt64(budget) else { continue }
            let size = Int(fileBytes)
            budget -= size
            let segment = try read(descriptor, at: Int(offset), count: size)
            notes += Self.parse(segment, alignment: alignment)
        }
        return notes
    }

    /// The notes in one note segment (`alignment`: its notes' alignment, 4
    /// or 8, to which the description and the next note are padded from the
    /// segment's start); stops at the first that does not fit.
    public static func parse(_ bytes: [UInt8], alignment: Int) -> [Note] {
        func padded(_ offset: Int) -> Int { (offset + alignment - 1) / alignment * alignment }
        var notes: [Note] = []
        var position = 0
        while bytes.count - position >= 12 {
            let ownerSize = Int(bytes.uint32(at: position))
            let descriptionSize = Int(bytes.uint32(at: position + 4))
            let type = bytes.uint32(at: position + 8)
            let ownerStart = position + 12
            guard ownerSize <= bytes.count - ownerStart else { break }
            let descriptionStart = padded(ownerStart + ownerSize)
            guard descriptionStart <= bytes.count, descriptionSize <= bytes.count - descriptionStart else { break }
            let ownerBytes = bytes[ownerStart ..< ownerStart + ownerSize].prefix { $0 != 0 }
            notes.append(Note(
                owner: String(decoding: ownerBytes, as: UTF8.self), type: type,
                description: Array(bytes[descriptionStart ..< descriptionStart + descriptionSize])
            ))
            position = padded(descriptionStart + descriptionSize)
        }
        return notes
    }

    /// `body`'s result; swift-system's calls throw only `Errno`, untyped.
    private static func errno<Result>(_ body: () throws -> Result) throws(Errno) -> Result {
        do {
            return try body()
        } catch let error as Errno {
            throw error
        } catch {
            throw Errno.ioError
        }
    }

    /// Up to `count` bytes at `offset` (which the caller checked against the
    /// file's size); fewer if the file shrank meanwhile.
    private func read(_ descriptor: FileDescriptor, at offset: Int, count: Int) throws(Errno) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = try Self.errno {
                try bytes.withUnsafeMutableBytes { buffer in
                    try descriptor.read(fromAbsoluteOffset: Int64(offset + filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }
}

extension [UInt8] {
    /// The little-endian integer at `offset` (the caller checked the bounds).
    fileprivate func uint16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    fileprivate func uint32(at offset: Int) -> UInt32 {
        (0 ..< 4).reduce(0) { $0 | UInt32(self[offset + $1]) << (8 * $1) }
    }

    fileprivate func uint64(at offset: Int) -> UInt64 {
        (0 ..< 8).reduce(0) { $0 | UInt64(self[offset + $1]) << (8 * $1) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
