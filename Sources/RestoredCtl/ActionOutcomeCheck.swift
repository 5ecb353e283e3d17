import RestoredControl
import RestoredEngine

/// The outcomes restored records for the apps a save or restore just
/// handled (read right after the call: an automatic save in between could
/// replace one).
enum ActionOutcomeCheck {
    /// Throws one line naming every app whose `action` failed, for the
    /// named apps or (none named) every app with a plugin; says on standard
    /// error which apps kept their last archive, and why (not a failure: a
    /// session ending, a restore waiting for the desktop), and which were
    /// live (a recovery restores nothing into a running app).
    static func check(client: DaemonClient, apps: [String], action: String) async throws(ControlError) {
        let records = try await client.apps().filter { record in
            apps.isEmpty ? record.plugin != nil : apps.contains(record.app)
        }
        var failures: [String] = []
        for record in records {
            guard let last = record.last, last.action == action else { continue }
            switch last.known {
            case .save(.failed)?, .restore(.failed)?, .restore(.unusableArchive)?:
                failures.append("\(record.app) (\(last.outcome): \(last.detail))")
            case .restore(.skipped)?:
                failures.append("\(record.app) (skipped: \(last.detail); restored-ctl restore --force \(record.app))")
            case .restore(.noArchive)? where !apps.isEmpty:
                failures.append("\(record.app) (no archive)")
            case .save(.kept)?, .restore(.live)?:
                Console.note("\(record.app): \(last.detail)")
            default:
                break
            }
        }
        guard failures.isEmpty else {
            throw ControlError(.failure, "not \(action == "save" ? "saved" : "restored"): \(failures.joined(separator: "; "))")
        }
    }
}
