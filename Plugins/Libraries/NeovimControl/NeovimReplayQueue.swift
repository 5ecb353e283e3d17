import Glibc
public import SystemPackage

/// Neovims started by a restore, each waiting for its saved state: each is
/// replayed as soon as it listens, and all are watched together, so a
/// Neovim that never comes costs the others nothing.
public enum NeovimReplayQueue {
    /// What became of one replay.
    public enum Outcome<Pending> {
        /// Replayed; what could not be, one line each.
        case replayed(Pending, problems: [String])
        /// The replay failed.
        case failed(Pending, NeovimError)
        /// Finding its Neovim failed.
        case notFound(Pending, any Error)
        /// No Neovim came within the time.
        case neverCame(Pending)

        /// The log lines it makes, each with whether it is a warning:
        /// `name` names a pending replay (its object's path), `place` says
        /// where its Neovim was awaited ("pane %0:1.0", "its window").
        public func lines(name: (Pending) -> String, place: (Pending) -> String, timeout: Duration) -> [(text: String, warning: Bool)] {
            switch self {
            case .replayed(let pending, let problems): problems.map { ("\(name(pending)): \($0)", false) }
            case .failed(let pending, let error): [("\(name(pending)): \(error)", true)]
            case .notFound(let pending, let error): [("\(name(pending)): \(error)", true)]
            case .neverCame(let pending): [("\(name(pending)): no nvim came up in \(place(pending)) within \(timeout); its windows were not replayed", true)]
            }
        }
    }

    /// Replays the session of each of `pending` (`session`) into the
    /// Neovim `socket` finds for it (nil while it has none yet), every wait
    /// and request within `timeout`, sizes as `sizing` says; `report` hears
    /// each outcome.
    public static func replay<Pending>(
        _ pending: [Pending], within timeout: Duration, sizing: NeovimSession.Sizing,
        session: (Pending) -> NeovimSession,
        socket: (inout Pending, ContinuousClock.Instant) throws -> FilePath?,
        report: (Outcome<Pending>) -> Void
    ) {
        let deadline = ContinuousClock.now + timeout
        var waiting = pending
        while !waiting.isEmpty {
            var still: [Pending] = []
            for var item in waiting {
                let found: FilePath?
                do {
                    found = try socket(&item, deadline)
                } catch {
                    report(.notFound(item, error))
                    continue
                }
                guard let found else {
                    still.append(item)
                    continue
                }
                do {
                    report(.replayed(item, problems: try session(item).replay(intoServerAt: found, before: deadline, sizing: sizing)))
                } catch {
                    report(.failed(item, error))
                }
            }
            waiting = still
            guard !waiting.isEmpty else { break }
            guard ContinuousClock.now < deadline else {
                waiting.forEach { report(.neverCame($0)) }
                break
            }
            usleep(50_000)
        }
    }
}
