import AppLaunching
import DesktopEntries

/// One restore of the session plugin: the apps it reopens and each launch
/// to make once every instance is known. Owned by the ``SessionPlugin``
/// alone (made anew for each restore); the restoration classes change it
/// only through its methods.
struct SessionRestore {
    /// One launch to make: the app and what it opens, where its windows
    /// were (X11), and the archived instance it reopens.
    struct PendingLaunch {
        let launch: DesktopLaunch
        let placements: [SavedWindow]
        let instance: AppInstanceObject
    }

    /// How many instances of each app ran when the restore began, by desktop id.
    let runningBefore: [String: Int]
    /// The entries of the apps reopened, by desktop id.
    private(set) var entries: [String: DesktopEntry] = [:]
    /// The launches, in the order the archive holds them.
    private(set) var launches: [PendingLaunch] = []
    /// The instances the archive holds, by desktop id, for the first save's comparison.
    private(set) var archivedCounts: [String: Int] = [:]

    /// A restore where `runningBefore` instances of each app run already.
    init(runningBefore: [String: Int] = [:]) {
        self.runningBefore = runningBefore
    }

    /// The app `id` is restored, with `entry`.
    mutating func appRestoring(_ id: String, entry: DesktopEntry) {
        entries[id] = entry
    }

    /// The archive holds one more instance of `id`.
    mutating func instanceArchived(of id: String) {
        archivedCounts[id, default: 0] += 1
    }

    /// Queues `launch` for `instance`, with where its windows were.
    mutating func pend(_ launch: DesktopLaunch, placing placements: [SavedWindow], for instance: AppInstanceObject) {
        launches.append(PendingLaunch(launch: launch, placements: placements, instance: instance))
    }
}
