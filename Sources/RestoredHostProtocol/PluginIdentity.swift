public import RestoredArchive
public import RestoredState

/// Who a started plugin is.
public struct PluginIdentity: Hashable, Sendable {
    /// The app it restores.
    public var appID: AppID
    /// The app version it declares.
    public var appVersion: String
    /// Its name for people.
    public var displayName: String
    /// The ABI version it speaks.
    public var abiVersion: UInt32
    /// What it declares of itself.
    public var traits: PluginTraits

    /// Creates an identity.
    public init(appID: AppID, appVersion: String, displayName: String, abiVersion: UInt32, traits: PluginTraits = []) {
        self.appID = appID
        self.appVersion = appVersion
        self.displayName = displayName
        self.abiVersion = abiVersion
        self.traits = traits
    }
}
