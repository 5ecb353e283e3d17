import AppLaunching
import DesktopEntries
import NeovimControl
import SystemPackage

/// One restore of the session plugin: the apps it reopens and each launch
/// to make once every instance is known. Owned by the ``SessionPlugin``
/// alone (made anew for each restore); the restoration classes change it
/// only through its methods.
struct SessionRestore {
    /// One launch to make: the app and what it opens, where its windows
    /// were (``SavedWindow``), and the archived instance it reopens.
    struct PendingLaunch {
        let launch: DesktopLaunch
        let placements: [SavedWindow]
        let instance: AppInstanceObject
        /// The one-use files it reads (a program's script, a kitty session
        /// file): removed when the launch fails.
        let files: [FilePath]
    }

    /// A Neovim's state waiting for the nvim a terminal window's script starts.
    struct PendingEditor {
        /// The script (``ProgramScript``) whose process runs the nvim.
        let script: FilePath
        let session: NeovimSession
        /// The instance's path, for the log.
        let path: String
    }

    /// How many instances of each app ran when the restore began, by desktop id.
    let runningBefore: [String: Int]
    /// The entries of the apps reopened, by desktop id.
    private(set) var entries: [String: DesktopEntry] = [:]
    /// The launches, in the order the archive holds them.
    private(set) var launches: [PendingLaunch] = []
    /// The files removed at the restore's end.
    private(set) var leftFiles: [FilePath] = []
    /// The Neovims to replay once their windows run them.
    private(set) var editors: [PendingEditor] = []
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
    mutating func pend(_ launch: DesktopLaunch, placing placements: [SavedWindow], for instance: AppInstanceObject, files: [FilePath] = []) {
        launches.append(PendingLaunch(launch: launch, placements: placements, instance: instance, files: files))
    }

    /// A file the launched program reads once it starts and leaves behind
    /// (a kitty session file): removed at the restore's end.
    mutating func removeAtEnd(_ file: FilePath) {
        leftFiles.append(file)
    }

    /// `session` is replayed into the nvim the window running `script` starts.
    mutating func editorWaits(for script: FilePath, _ session: NeovimSession, path: String) {
        editors.append(PendingEditor(script: script, session: session, path: path))
    }
}
