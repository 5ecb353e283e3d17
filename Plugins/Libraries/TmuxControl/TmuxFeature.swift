/// What the tmux plugin uses that older tmux versions lack, with the first
/// version that has it.
public enum TmuxFeature: String, CaseIterable, Hashable, Sendable {
    /// `tmux -D`: a server that stays in the foreground, so that the
    /// user manager's unit lives exactly as long as the server.
    case foregroundServer
    /// `select-pane -T`: setting a pane's title.
    case paneTitles

    /// The first tmux version with it.
    public var minimumVersion: TmuxVersion {
        switch self {
        case .foregroundServer: return TmuxVersion(major: 3, minor: 2)
        case .paneTitles: return TmuxVersion(major: 2, minor: 6)
        }
    }

    /// What it is, for a log line.
    public var summary: String {
        switch self {
        case .foregroundServer: return "a server in the foreground (tmux -D)"
        case .paneTitles: return "pane titles (select-pane -T)"
        }
    }
}
