public import RestoredArchive

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

    /// Creates an identity.
    public init(appID: AppID, appVersion: String, displayName: String, abiVersion: UInt32) {
        self.appID = appID
        self.appVersion = appVersion
        self.displayName = displayName
        self.abiVersion = abiVersion
    }
}
