import RestorationKit

/// The root of the app: every player, one child each.
final class PlayersObject: RestorableObject {
    var restorationIdentifier: String? = "Players"
    var restorationClass: (any RestorationClass.Type)?
    /// At a save, the players running now; at a restore, the ones the
    /// archive holds, as ``PlayerRestoration`` recreates them.
    var players: [PlayerObject] = []

    var restorationChildren: [any RestorableObject] { players }
}
