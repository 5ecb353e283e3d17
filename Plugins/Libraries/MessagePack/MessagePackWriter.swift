/// Writes MessagePack values, each in its shortest form.
public struct MessagePackWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// The bytes of `value`.
    public static func encode(_ value: MessagePackValue) -> [UInt8] {
        var writer = MessagePackWriter()
        writer.write(value)
        return writer.bytes
    }

    /// Appends `value`.
    public mutating func write(_ value: MessagePackValue) {
        switch value {
        case .nil: bytes.append(0xC0)
        case .bool(let value): bytes.append(value ? 0xC3 : 0xC2)
        case .int(let value): writeInteger(value)
        case .uint(let value): writeUnsigned(value)
        case .float(let value):
            bytes.append(0xCB)
            appendBigEndian(value.bitPattern, count: 8)
        case .string(let text):
            let utf8 = Array(text.utf8)
            writeHeader(count: utf8.count, fix: (0xA0, 31), eight: 0xD9, sixteen: 0xDA, thirtyTwo: 0xDB)
            bytes += utf8
        case .binary(let data):
            writeHeader(count: data.count, fix: nil, eight: 0xC4, sixteen: 0xC5, thirtyTwo: 0xC6)
            bytes += data
        case .array(let elements):
            writeHeader(count: elements.count, fix: (0x90, 15), eight: nil, sixteen: 0xDC, thirtyTwo: 0xDD)
            for element in elements { write(element) }
        case .map(let pairs):
            writeHeader(count: pairs.count, fix: (0x80, 15), eight: nil, sixteen: 0xDE, thirtyTwo: 0xDF)
            for pair in pairs {
                write(pair.key)
                write(pair.value)
            }
        case .extension(let type, let data):
            switch data.count {
            case 1: bytes.append(0xD4)
            case 2: bytes.append(0xD5)
            case 4: bytes.append(0xD6)
            case 8: bytes.append(0xD7)
            case 16: bytes.append(0xD8)
            default: writeHeader(count: data.count, fix: nil, eight: 0xC7, sixteen: 0xC8, thirtyTwo: 0xC9)
            }
            bytes.append(UInt8(bitPattern: type))
            bytes += data
        }
    }

    private mutating func writeInteger(_ value: Int64) {
        if value >= 0 { return writeUnsigned(UInt64(value)) }
        switch value {
        case -32 ..< 0: bytes.append(UInt8(bitPattern: Int8(value)))
        case Int64(Int8.min) ..< -32:
            bytes.append(0xD0)
            appendBigEndian(UInt64(UInt8(bitPattern: Int8(value))), count: 1)
        case Int64(Int16.min) ..< Int64(Int8.min):
            bytes.append(0xD1)
            appendBigEndian(UInt64(UInt16(bitPattern: Int16(value))), count: 2)
        case Int64(Int32.min) ..< Int64(Int16.min):
            bytes.append(0xD2)
            appendBigEndian(UInt64(UInt32(bitPattern: Int32(value))), count: 4)
        default:
            bytes.append(0xD3)
            appendBigEndian(UInt64(bitPattern: value), count: 8)
        }
    }

    private mutating func writeUnsigned(_ value: UInt64) {
        switch value {
        case 0 ... 0x7F: bytes.append(UInt8(value))
        case 0x80 ... 0xFF: bytes.append(0xCC); appendBigEndian(value, count: 1)
        case 0x100 ... 0xFFFF: bytes.append(0xCD); appendBigEndian(value, count: 2)
        case 0x1_0000 ... 0xFFFF_FFFF: bytes.append(0xCE); appendBigEndian(value, count: 4)
        default: bytes.append(0xCF); appendBigEndian(value, count: 8)
        }
    }

    /// A length header: the fix form when `count` fits it, else the smallest
    /// family member. MessagePack has no length beyond 2^32 - 1: a longer
    /// value is a programming error.
    private mutating func writeHeader(count: Int, fix: (base: UInt8, limit: Int)?, eight: UInt8?, sixteen: UInt8, thirtyTwo: UInt8) {
        precondition(count <= Int(UInt32.max), "MessagePack cannot hold \(count) elements or bytes")
        if let fix, count <= fix.limit {
            bytes.append(fix.base | UInt8(count))
        } else if let eight, count <= 0xFF {
            bytes.append(eight)
            appendBigEndian(UInt64(count), count: 1)
        } else if count <= 0xFFFF {
            bytes.append(sixteen)
            appendBigEndian(UInt64(count), count: 2)
        } else {
            bytes.append(thirtyTwo)
            appendBigEndian(UInt64(count), count: 4)
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, count: Int) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
