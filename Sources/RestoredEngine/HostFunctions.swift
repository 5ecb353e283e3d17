internal import CRestoredPlugin

/// The function table every plugin instance receives (`restored_host_functions`).
///
/// Built once; each entry finds its Swift object from the opaque pointer the
/// plugin passes back.
enum HostFunctions {
    /// Unsafe only in name: the table is written once, here, and never changed.
    nonisolated(unsafe) static let table: UnsafePointer<restored_host_functions> = {
        var table = restored_host_functions()
        table.struct_size = UInt32(MemoryLayout<restored_host_functions>.size)
        table.abi_version = RESTORED_PLUGIN_ABI_VERSION
        table.log = { context, level, message in
            guard let context = SessionContext.from(context) else { return }
            context.log(level, ObjectSink.text(message) ?? "(message is not UTF-8)")
        }
        table.set_error = { context, message in
            SessionContext.from(context)?.lastError = ObjectSink.text(message) ?? "(message is not UTF-8)"
        }
        table.set_archive_flag = { context, flag, on in
            SessionContext.from(context)?.setFlag(flag, on: on) ?? RESTORED_ERROR_INVALID_ARGUMENT
        }
        // The coder outlives every call made with it: borrow it without
        // reference counting on this, the hottest path.
        table.encode_value = { coder, key, value in
            guard let coder, let value, let key = EncodingCoder.buffer(key) else { return RESTORED_ERROR_INVALID_ARGUMENT }
            return Unmanaged<HostCoder>.fromOpaque(UnsafeRawPointer(coder))._withUnsafeGuaranteedRef {
                $0.encodeValue(key: key, value: value)
            }
        }
        table.decode_value = { coder, key, value in
            guard let coder, let value, let key = EncodingCoder.buffer(key) else { return RESTORED_ERROR_INVALID_ARGUMENT }
            return Unmanaged<HostCoder>.fromOpaque(UnsafeRawPointer(coder))._withUnsafeGuaranteedRef {
                $0.decodeValue(key: key, into: value)
            }
        }
        table.contains_key = { coder, key in
            guard let coder, let key = EncodingCoder.buffer(key) else { return false }
            return Unmanaged<HostCoder>.fromOpaque(UnsafeRawPointer(coder))._withUnsafeGuaranteedRef { $0.containsKey(key) }
        }
        table.encode_entries = { coder, bytes, length in
            guard let coder, let bytes = EncodingCoder.buffer(bytes, length) else { return RESTORED_ERROR_INVALID_ARGUMENT }
            return Unmanaged<HostCoder>.fromOpaque(UnsafeRawPointer(coder))._withUnsafeGuaranteedRef { $0.encodeEntries(bytes) }
        }
        table.borrow_entries = { coder, bytes, length in
            guard let coder, let bytes, let length else { return RESTORED_ERROR_INVALID_ARGUMENT }
            return Unmanaged<HostCoder>.fromOpaque(UnsafeRawPointer(coder))._withUnsafeGuaranteedRef { host in
                guard let entries = host.borrowEntries() else { return RESTORED_ERROR_WRONG_PHASE }
                bytes.pointee = entries.baseAddress
                length.pointee = entries.count
                return RESTORED_OK
            }
        }
        table.object_at_path = { coder, path in
            guard let coder, let path, let objectPath = HostCoder.objectPath(path.pointee) else { return nil }
            return Unmanaged<HostCoder>.fromOpaque(UnsafeRawPointer(coder))._withUnsafeGuaranteedRef { $0.object(at: objectPath)?.pointer }
        }
        table.save_occasion = { context in
            guard case .preserving(let occasion) = SessionContext.from(context)?.phase else { return 0 }
            return occasion.rawValue
        }
        table.restore_reason = { context in
            guard case .restoring(let reason) = SessionContext.from(context)?.phase else { return 0 }
            return reason.rawValue
        }
        table.walk_time_left = { context in
            SessionContext.from(context)?.walkTimeLeft ?? .max
        }
        table.carry_over = { coder in
            guard let coder else { return RESTORED_ERROR_INVALID_ARGUMENT }
            return Unmanaged<HostCoder>.fromOpaque(UnsafeRawPointer(coder))._withUnsafeGuaranteedRef { $0.carryOver() }
        }
        // A sink lives through the call that lends it, as a coder does:
        // borrowed without reference counting too (both run once per object).
        table.sink_add = { sink, object, info in
            guard let sink else { return RESTORED_ERROR_INVALID_ARGUMENT }
            return Unmanaged<ObjectSink>.fromOpaque(UnsafeRawPointer(sink))._withUnsafeGuaranteedRef { $0.add(object, info) }
        }
        table.tree_add = { sink, parent, object, info in
            guard let sink else { return RESTORED_ERROR_INVALID_ARGUMENT }
            return Unmanaged<ObjectSink>.fromOpaque(UnsafeRawPointer(sink))._withUnsafeGuaranteedRef { $0.add(object, under: parent, info: info) }
        }
        table.snapshot_set = { sink, mediaType, data, length in
            SnapshotSink.from(sink)?.set(mediaType: mediaType, data: data, length: length) ?? RESTORED_ERROR_INVALID_ARGUMENT
        }
        let pointer = UnsafeMutablePointer<restored_host_functions>.allocate(capacity: 1)
        pointer.initialize(to: table)
        return UnsafePointer(pointer)
    }()
}
