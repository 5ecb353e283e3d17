public import RestoredState

/// App-wide decisions and state, like UIKit's app delegate (R6, R7, R9, R12).
///
/// Every method has a default: save and restore always, no app-wide state,
/// no snapshot.
public protocol RestorationDelegate: AnyObject {
    /// Whether to save now; false writes nothing and discards the previous
    /// archive as stale (R6). Throwing fails this save: nothing is written,
    /// the previous archive is kept, and the error is the app's reported
    /// reason (for a plugin whose source of state is going away under it).
    /// A plugin may implement it without `throws`.
    func shouldSaveApplicationState(coder: StateCoder) throws -> Bool

    /// R6 with its third answer: save, decline, or keep what restored has
    /// (``SaveDecision/keepLastArchive``: nothing to say right now, keep
    /// both archive generations, no warning). By default
    /// ``shouldSaveApplicationState(coder:)``'s yes or no. Implement this
    /// instead of that one when "keep" fits: a plugin whose app is not
    /// there to ask at this moment. Throwing fails the save, as there.
    func saveDecision(coder: StateCoder) throws -> SaveDecision

    /// Whether to restore; the coder holds the app state and the reserved
    /// keys (`restored.appVersion`, `restored.timestamp` ...) (R7).
    func shouldRestoreApplicationState(coder: StateCoder) -> Bool

    /// Encodes app-wide state at the start of preservation, including manual
    /// saves of excluded objects by reference (R6, R14).
    func willEncodeRestorableState(with coder: StateCoder) throws

    /// Decodes the app-wide state after every object is restored (R9).
    func didDecodeRestorableState(with coder: StateCoder) throws

    /// Provides an object that has no restoration class (R8 step 2); nil
    /// lets the registered objects provide it.
    func object(forRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)?

    /// Called at the very end of restoration (R9).
    func restorationDidFinish()

    /// Called before the snapshot is taken, to hide sensitive content (R12).
    func willTakeSnapshot()

    /// The snapshot to keep with the archive, or nil (R12).
    func snapshot() -> RestorationSnapshot?

    /// Shows the saved snapshot until the app is back (R12); not called when
    /// the archive says to ignore it.
    func present(_ snapshot: RestorationSnapshot)
}

extension RestorationDelegate {
    /// Always saves.
    public func shouldSaveApplicationState(coder: StateCoder) -> Bool { true }
    /// ``shouldSaveApplicationState(coder:)``'s answer: save or decline.
    public func saveDecision(coder: StateCoder) throws -> SaveDecision {
        try shouldSaveApplicationState(coder: coder) ? .save : .decline
    }
    /// Always restores.
    public func shouldRestoreApplicationState(coder: StateCoder) -> Bool { true }
    /// Encodes nothing.
    public func willEncodeRestorableState(with coder: StateCoder) throws {}
    /// Decodes nothing.
    public func didDecodeRestorableState(with coder: StateCoder) throws {}
    /// Provides nothing. When the plugin itself keeps this default (not an
    /// object its own lookup asks), the SDK notes it and answers the rest
    /// of the host's lookups without calling it.
    public func object(forRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        if self === coder.instance.plugin { coder.instance.hasDefaultDelegateLookup = true }
        return nil
    }
    /// Does nothing.
    public func restorationDidFinish() {}
    /// Does nothing.
    public func willTakeSnapshot() {}
    /// No snapshot.
    public func snapshot() -> RestorationSnapshot? { nil }
    /// Does nothing.
    public func present(_ snapshot: RestorationSnapshot) {}
}
