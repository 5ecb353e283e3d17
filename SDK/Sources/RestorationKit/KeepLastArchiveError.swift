/// A plugin answered "keep what you have" to a host that predates
/// `save_decision`: failing the save is how such a host keeps the archive.
struct KeepLastArchiveError: Error, CustomStringConvertible {
    /// One line for the host's log.
    var description: String {
        "the plugin keeps its last archive (nothing new to save now); this restored predates that answer and reports it as a failed save"
    }
}
