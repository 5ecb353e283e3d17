/// The protocol between restored and its plugin hosts (`restored-plugin-host`),
/// one helper process per plugin.
///
/// Transport: a `SOCK_STREAM` socketpair, descriptor 3 in the helper. Frames:
/// a 32-bit little-endian body length, then the body: one byte of
/// ``HostFrameKind`` and the message. A message is the length of its
/// entries (u32), the entries, a keyed container in the wire format of
/// `restored/plugin.h` read with the same bounds-checked reader as archive
/// state, and then a blob: the archive of a save or a restore, in the
/// archive file format, sent and received as it is (``MessageFields``).
/// The crash report is the one exception:
/// the helper's signal handler writes it without allocating, as the signal
/// number (one byte) and the name of the callback that was running.
///
/// Exchange: restored sends `start` and the helper answers `ready` or
/// `refused`; both carry the protocol's version and the restored version of
/// their end (`version`, `restoredVersion`: the two entries every version of
/// the protocol from 3 on reads first; version 2 had no `restoredVersion`,
/// and a helper of 2 fails a start of 3 as garbage). An upgrade replaces restored, its helper and
/// its plugins while the old daemon runs, so the two ends may be of two
/// versions: a helper that cannot read restored's protocol says so on
/// standard error and exits with ``versionMismatchStatus``, and restored
/// reads a `ready` of another protocol as a mismatch, not garbage; neither
/// counts against the plugin. A helper of another restored version that
/// speaks the same protocol serves, and restored restarts into the new
/// version once its own executable is new too and no save runs. Then each walk is one request (`save`, `restore`) and one
/// reply (`saved`, `unchanged`, `restored`). Nothing crosses per plugin
/// callback. restored checks every length before it reads or allocates, and a
/// frame it cannot read costs the helper its life (``HostProtocolError``).
public enum HostProtocol {
    /// The version both ends speak; `start` and `ready` carry it, and a
    /// helper of another version refuses to start.
    public static let version: UInt32 = 3
    /// The exit status of a helper that cannot read restored's protocol
    /// (`EX_PROTOCOL`): the upgrade's mismatch, said on standard error.
    public static let versionMismatchStatus: Int32 = 76
    /// The helper's end of the channel.
    public static let channelDescriptor: Int32 = 3
    /// The largest frame body restored reads from a helper: the largest app
    /// state (64 MiB, R13) with room for its report.
    public static let maximumReplyLength = 96 << 20
    /// The largest frame body a helper reads from restored: a stored archive
    /// may be up to 1 GiB.
    public static let maximumRequestLength = 1 << 30
}
