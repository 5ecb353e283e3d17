// The ABI's vocabulary a plugin uses with this API (SaveOccasion,
// RestoreReason, PluginTraits) lives in RestoredState, shared with the host;
// a plugin gets it with `import RestorationKit` alone.
@_exported public import RestoredState

/// A plugin: the restoration class of one app, as a Swift type.
///
/// The host creates one instance per app session with ``init(context:)``.
/// The instance is also the app's ``RestorationDelegate``. Export it with
/// ``PluginExport/descriptor(for:)``:
///
/// ```swift
/// import RestorationKit
///
/// @_cdecl("restored_plugin_v1")
/// public func restoredPluginV1() -> UnsafeRawPointer { PluginExport.descriptor(for: NotesPlugin.self) }
/// ```
public protocol RestorationPlugin: RestorationDelegate {
    /// The freedesktop application id, like `org.example.Notes`.
    static var appID: String { get }
    /// The app's version, recorded in the archive (`restored.appVersion`).
    static var appVersion: String { get }
    /// A name for people.
    static var displayName: String { get }
    /// The restoration classes the archive may name (R8 step 1).
    static var restorationClasses: [any RestorationClass.Type] { get }
    /// What the plugin declares of itself: whether its restoration works on
    /// a live app (``PluginTraits/restoresIntoRunningApp``) and whether what
    /// it restores needs the desktop (``PluginTraits/needsGraphicalSession``).
    static var traits: PluginTraits { get }

    /// Creates the instance for one app session.
    init(context: PluginContext) throws

    /// The root objects (windows), in order. The preservation walk starts here (R2).
    var rootObjects: [any RestorableObject] { get }
}

extension RestorationPlugin {
    /// The app id.
    public static var displayName: String { appID }
    /// None.
    public static var restorationClasses: [any RestorationClass.Type] { [] }
    /// None: restored at login at once, and never into a running app.
    public static var traits: PluginTraits { [] }
}
