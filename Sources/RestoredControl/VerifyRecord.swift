public import RestoredArchive

/// The integrity of one app's archive files, as `restored-ctl verify` shows it.
///
/// JSON shape (`verify --json`): `app`, `ok` (no file is corrupt or
/// unusable), `current`, `previous` and `lastComplete` (the last complete
/// archive kept beside partial ones, usually `absent`), `partial` (the
/// archive a restore would read left objects out: intact, not complete),
/// each file with `status` (`ok`, `absent`,
/// `corrupt`, `unusable`), `generation` and `size` (when ok), `problem`
/// (when not).
public struct VerifyRecord: Encodable, Hashable, Sendable {
    /// One file.
    public struct File: Encodable, Hashable, Sendable {
        /// `ok`, `absent`, `corrupt` or `unusable`.
        public var status: String
        /// Its generation, when ok.
        @NullEncoded public var generation: UInt64?
        /// Its size in bytes, when ok.
        @NullEncoded public var size: Int?
        /// What is wrong, when corrupt or unusable.
        @NullEncoded public var problem: String?

        init(_ status: ArchiveVerification.Status) {
            switch status {
            case .absent:
                self.status = "absent"
            case .ok(let generation, let size):
                self.status = "ok"
                self.generation = generation
                self.size = size
            case .corrupt(let error):
                self.status = "corrupt"
                self.problem = error.description
            case .unusable(let problem):
                self.status = "unusable"
                self.problem = problem.description
            }
        }

        /// One phrase: `ok (generation 3, 12.1 KiB)`, `corrupt: …`.
        public var summary: String {
            switch status {
            case "ok": "ok (generation \(generation ?? 0), \(ByteCount.text(size ?? 0)))"
            case "absent": "absent"
            case "corrupt": "corrupt (\((problem ?? "").replacingOccurrences(of: "corrupt archive: ", with: "")))"
            default: "\(status): \(problem ?? "")"
            }
        }
    }

    /// The app id.
    public var app: String
    /// Whether neither file is corrupt or unusable.
    public var ok: Bool
    /// Whether either file holds an archive (ok, corrupt or unusable).
    public var exists: Bool { current.status != "absent" || previous.status != "absent" }
    /// The current generation's file.
    public var current: File
    /// The previous generation's file.
    public var previous: File
    /// The last complete archive's file, kept while newer saves are partial.
    public var lastComplete: File
    /// Whether the archive a restore would read is partial: intact, but its
    /// save left objects out (`restored-ctl show` names them).
    public var partial = false

    /// The record of a verification.
    public init(_ verification: ArchiveVerification) {
        app = verification.appID.rawValue
        current = File(verification.current)
        previous = File(verification.previous)
        lastComplete = File(verification.lastComplete)
        ok = [current, previous, lastComplete].allSatisfy { $0.status == "ok" || $0.status == "absent" }
    }
}
