import RestoredControl
import RestoredEngine

/// The outcomes restored records for the apps a save or restore just
/// handled (read right after the call: an automatic save in between could
/// replace one).
enum ActionOutcomeCheck {
    /// Throws one line naming every app whose `action` failed, for the
    /// named apps or (none named) every app with a plugin.
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
            default:
                break
            }
        }
        guard failures.isEmpty else {
            throw ControlError(.failure, "not \(action == "save" ? "saved" : "restored"): \(failures.joined(separator: "; "))")
        }
    }
}
