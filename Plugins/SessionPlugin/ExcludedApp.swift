import RestorationKit

/// An app left out of the save, listed so that `restored-ctl show` says
/// why: its identifier is its desktop id, its one key the reason. It has
/// no restoration class: nothing comes back of it (the plugin gives the
/// list back as a list, ``SessionPlugin/object(forRestorationIdentifierPath:coder:)``).
final class ExcludedApp: RestorableObject {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = nil
    private let reason: String
    private let instances: Int

    init(desktopID: String, reason: String, instances: Int) {
        restorationIdentifier = desktopID
        self.reason = reason
        self.instances = instances
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        // The key names the reason, so that `restored-ctl show` prints it.
        try coder.encode(instances, forKey: "left out: \(reason)")
    }
}

/// The parent of the ``ExcludedApp``s, identifier `left-out`.
final class ExcludedApps: RestorableObject {
    /// Its identifier.
    static let identifier = "left-out"
    var restorationIdentifier: String? = identifier
    var restorationClass: (any RestorationClass.Type)? = nil
    let apps: [ExcludedApp]
    var restorationChildren: [any RestorableObject] { apps }

    init(_ apps: [ExcludedApp]) {
        self.apps = apps
    }
}
