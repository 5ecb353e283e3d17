import Glibc
public import SystemPackage

extension NeovimSession {
    /// Replays the session into the Neovim listening on `socket`, every
    /// request answered before `deadline`; returns what could not be
    /// replayed, one line each.
    ///
    /// A Neovim asking its user something as it starts (a swap file of the
    /// file it was started with) is left to the user: their answer comes
    /// first, and nothing is replayed behind it (``NeovimError/waitsForUser``
    /// after a second of asking).
    ///
    /// With ``Sizing/shares`` (a terminal window, which its window manager
    /// may still be resizing as it places it), the replay waits first until
    /// the editor's size has held for half a second (three seconds at most).
    public func replay(intoServerAt socket: FilePath, before deadline: ContinuousClock.Instant, sizing: Sizing = .cells) throws(NeovimError) -> [String] {
        let client = try NeovimClient(socket: socket, timeout: .seconds(3))
        client.deadline = deadline
        let asking = ContinuousClock.now + .seconds(1)
        while try client.call("nvim_get_mode")["blocking"]?.boolValue == true {
            guard ContinuousClock.now < asking else { throw .waitsForUser }
            usleep(50_000)
        }
        if sizing == .shares { try Self.waitForSteadySize(of: client, until: min(deadline, .now + .seconds(3))) }
        return try replay(into: client, sizing: sizing)
    }

    /// Waits until `client`'s Neovim keeps one size for half a second, or `limit`.
    private static func waitForSteadySize(of client: NeovimClient, until limit: ContinuousClock.Instant) throws(NeovimError) {
        var last = try client.call("nvim_eval", ["[&columns, &lines]"])
        var since = ContinuousClock.now
        while ContinuousClock.now < limit, ContinuousClock.now - since < .milliseconds(500) {
            usleep(50_000)
            let now = try client.call("nvim_eval", ["[&columns, &lines]"])
            if now != last {
                last = now
                since = .now
            }
        }
    }

    /// The state of the Neovim listening on one of `sockets`, every request
    /// answered before `deadline`; the error of the last socket tried when
    /// none answers.
    public static func read(fromServerAt sockets: [FilePath], before deadline: ContinuousClock.Instant) throws(NeovimError) -> NeovimSession {
        var failure = NeovimError.unexpectedShape("no socket")
        for socket in sockets {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            do {
                let client = try NeovimClient(socket: socket, timeout: left)
                client.deadline = deadline
                return try NeovimSession.read(from: client)
            } catch {
                failure = error
            }
        }
        throw failure
    }
}
