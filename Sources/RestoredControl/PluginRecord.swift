import RestoredDBus

/// One plugin file as `restored-ctl plugins` shows it.
///
/// JSON shape (`plugins --json`): `file`, `app` (null when refused),
/// `abiVersion` (null when refused), `state` (`loaded`, `quarantined` or
/// `refused`), `reason` (the refusal or quarantine with what to do, or null).
public struct PluginRecord: Encodable, Hashable, Sendable {
    /// The plugin file.
    public var file: String
    /// The app it serves, when loaded.
    @NullEncoded public var app: String?
    /// The ABI version it declared, when loaded.
    @NullEncoded public var abiVersion: UInt32?
    /// `loaded`, `quarantined` (its plugin host failed in three walks in a
    /// row; not started until the file changes) or `refused`.
    public var state: String
    /// Why it was refused, and what to do; for a loaded plugin, a note (a
    /// new build on disk waiting for a restart).
    @NullEncoded public var reason: String?

    /// A row of the daemon's `ListPlugins`: (file, app id, ABI version, "loaded" or the refusal).
    init?(daemonRow fields: [DBusValue]) {
        guard fields.count == 4, let file = fields[0].stringValue, let app = fields[1].stringValue,
              let abi = fields[2].uint64Value, let state = fields[3].stringValue
        else { return nil }
        self.file = file
        if state.hasPrefix("loaded") {
            self.app = app
            self.abiVersion = UInt32(abi)
            self.state = "loaded"
            // "loaded; <note>": a note, like a new build waiting for the next save.
            self.reason = state == "loaded" ? nil : String(state.dropFirst("loaded; ".count))
        } else if state.hasPrefix("quarantined: ") {
            self.app = app
            self.abiVersion = UInt32(abi)
            self.state = "quarantined"
            self.reason = String(state.dropFirst("quarantined: ".count))
        } else {
            self.state = "refused"
            self.reason = state
        }
    }
}
