/// Which of restored's saves walk an app: one state per app, kept by
/// ``SaveCoordinator`` (the only place that decides it) and moved by a
/// login's start and a desktop's moments.
///
/// A plugin that needs the desktop (the descriptor's `needsGraphicalSession`
/// trait) cannot see its app while no desktop is up, nor before its host
/// has the desktop's variables: a save then finds nothing, and would either
/// discard the archive the next restore needs or write an empty one over
/// it. So such an app is walked only while its desktop is there; every
/// other save keeps its last archive and says why.
enum AppSaveState: Sendable, Hashable {
    /// Every save walks it: its app can be seen (every plugin that needs no
    /// desktop, and those that do while theirs runs).
    case live
    /// restored started with no desktop up: its archive (if any) waits for
    /// the first one, and no save walks it until then.
    case awaitingDesktop
    /// Its desktop is ending: only the save at that end walks it (an
    /// autosave under way writes nothing of what it found).
    case endingWithDesktop
    /// Its desktop ended and its app was saved for that end: no save walks
    /// it until the next desktop, which restores it.
    case keptUntilNextDesktop

    /// Whether a save walks the app; the save at the end of its desktop
    /// (`atDesktopEnd`) walks an app ending with it too.
    func isWalked(atDesktopEnd: Bool) -> Bool {
        switch self {
        case .live: true
        case .endingWithDesktop: atDesktopEnd
        case .awaitingDesktop, .keptUntilNextDesktop: false
        }
    }

    /// Whether a desktop's start restores the app: its archive waited for one.
    var waitsForDesktop: Bool { self != .live }

    /// What a save that does not walk the app reports (its archive kept).
    var keptReason: String {
        switch self {
        case .live:
            "not saved"
        case .awaitingDesktop:
            "not saved: it waits for the desktop (graphical-session.target or a display), without which its app cannot be seen; its archive is kept"
        case .endingWithDesktop:
            "not saved: its desktop is ending, and the save at that end saves it; its archive is kept"
        case .keptUntilNextDesktop:
            "not saved: its desktop ended and it was saved then; its archive is kept for the next desktop"
        }
    }
}
