public import RestoredArchive
public import RestoredState

/// One live instance of a plugin, as the preservation and restoration walks
/// see it.
///
/// The walks speak only to this protocol. ``InProcessPluginSession`` calls a
/// plugin loaded into this process through `restored/plugin.h`; a session
/// that forwards the same calls to a helper process can replace it without
/// touching the walks. Every call reports a failure as ``PluginCallError``.
public protocol PluginSession: AnyObject {
    /// The app the plugin restores.
    var appID: AppID { get }
    /// The app version recorded in archives.
    var appVersion: String { get }
    /// The plugin's file name, recorded in archives.
    var pluginName: String { get }
    /// Whether the plugin asked, during this preservation, to ignore the snapshot at the next launch (R12).
    var ignoreSnapshotRequested: Bool { get }

    /// Marks the start of a preservation (allows archive flags) or of a
    /// restoration, with why it runs (the plugin can ask).
    func begin(_ phase: SessionPhase)
    /// Ends the walk: the plugin releases every handle it gave out.
    func endWalk()

    /// R6: save, decline, or keep the last archive.
    func saveDecision(_ coder: EncodingCoder) throws(PluginCallError) -> SaveDecision
    /// R6, R14.
    func willEncodeRestorableState(_ coder: EncodingCoder) throws(PluginCallError)
    /// The roots (parent nil) or the children and presented objects of `parent` (R2, R4).
    func listObjects(under parent: ObjectHandle?) throws(PluginCallError) -> [ReportedObject]
    /// The whole tree in one call (R1-R4), or nil when the plugin lists it
    /// only object by object, with ``listObjects(under:)``.
    func listTree() throws(PluginCallError) -> ReportedTree?
    /// R5.
    func encode(_ object: ObjectHandle, into coder: EncodingCoder) throws(PluginCallError)
    /// R12: redact before the snapshot.
    func willTakeSnapshot() throws(PluginCallError)
    /// R12.
    func takeSnapshot() throws(PluginCallError) -> Snapshot?

    /// R7.
    func shouldRestoreApplicationState(_ coder: DecodingCoder) throws(PluginCallError) -> Bool
    /// R12.
    func presentSnapshot(_ snapshot: Snapshot) throws(PluginCallError)
    /// R8 step 1.
    func objectFromRestorationClass(_ restorationClass: String, path: ObjectPath, coder: DecodingCoder) throws(PluginCallError) -> ObjectHandle?
    /// R8 step 2.
    func objectFromDelegate(path: ObjectPath, coder: DecodingCoder) throws(PluginCallError) -> ObjectHandle?
    /// R8 step 3.
    func registeredObject(at path: ObjectPath) throws(PluginCallError) -> ObjectHandle?
    /// R8 steps 2 and 3, for an object without a restoration class: the
    /// delegate's object for `path`, or else the one registered there, and
    /// whether the delegate gave it (only then does it get its identity back).
    func objectFromDelegateOrRegistry(at path: ObjectPath, coder: DecodingCoder) throws(PluginCallError) -> (handle: ObjectHandle, fromDelegate: Bool)?
    /// What the object is now (R10).
    func describe(_ object: ObjectHandle) throws(PluginCallError) -> ReportedObject
    /// R8: a recreated object gets its identifier and restoration class back.
    func restoreIdentity(of object: ObjectHandle, identifier: String, restorationClass: String?) throws(PluginCallError)
    /// R9 phase 2.
    func decode(_ object: ObjectHandle, from coder: DecodingCoder) throws(PluginCallError)
    /// R9.
    func finishedRestoringState(_ object: ObjectHandle) throws(PluginCallError)
    /// R9.
    func didDecodeRestorableState(_ coder: DecodingCoder) throws(PluginCallError)
    /// R9.
    func restorationDidFinish() throws(PluginCallError)
}

/// What a session is doing.
public enum SessionPhase: Hashable, Sendable {
    /// Between walks.
    case idle
    /// Preserving, for this occasion: archive flags may be set.
    case preserving(SaveOccasion)
    /// Restoring, for this reason.
    case restoring(RestoreReason)
}

extension PluginSession {
    /// No tree in one call: the walk lists it object by object.
    public func listTree() throws(PluginCallError) -> ReportedTree? { nil }

    /// Asks the delegate, then the registered objects, one call each.
    public func objectFromDelegateOrRegistry(at path: ObjectPath, coder: DecodingCoder) throws(PluginCallError) -> (handle: ObjectHandle, fromDelegate: Bool)? {
        if let handle = try objectFromDelegate(path: path, coder: coder) { return (handle, true) }
        return try registeredObject(at: path).map { ($0, false) }
    }
}
