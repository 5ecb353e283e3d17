/// Whether a restoration honours the crash-loop guard (R15).
public enum RestorationMode: Sendable {
    /// At login: skipped after a restore that never finished.
    case automatic
    /// Asked for by the user (`restored-ctl restore --force`): runs anyway.
    case forced
}
