internal import CRestoredPlugin
import RestoredArchive

/// Receives the snapshot a plugin hands over (`restored_snapshot_sink`, R12).
final class SnapshotSink {
    var snapshot: Snapshot?

    var cPointer: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    static func from(_ pointer: OpaquePointer?) -> SnapshotSink? {
        guard let pointer else { return nil }
        return Unmanaged<SnapshotSink>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    func set(mediaType: restored_string, data: UnsafeRawPointer?, length: Int) -> restored_status {
        guard let type = ObjectSink.text(mediaType), !type.isEmpty, length == 0 || data != nil else {
            return RESTORED_ERROR_INVALID_ARGUMENT
        }
        let bytes = length == 0 ? [] : Array(UnsafeRawBufferPointer(start: data, count: length))
        snapshot = Snapshot(mediaType: type, data: bytes)
        return RESTORED_OK
    }
}
