import RestoredControl
import RestoredEngine

/// The outcomes restored records for the apps a save or restore just
/// handled (read right after the call: an automatic save in between could
/// replace one).
enum ActionOutcomeCheck {
    /// Throws one line naming every app whose `action` failed, for the
    /// named apps or (none named) every app with a plugin, and every app a
    /// save left objects out of (a partial save: each object with why); says
    /// on standard error which apps kept their last archive, and why (not a
    /// failure: the plugin's "keep what you have", a session ending, a
    /// restore waiting for the desktop), which were live (a recovery
    /// restores nothing into a running app), and each object a restore did
    /// not restore, with why.
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
            case .save(.partial)?:
                let objects = last.objects.map { "\($0.path): \($0.reason)" }.joined(separator: "; ")
                failures.append("\(record.app) (saved partially, left out: \(objects); \(last.detail))")
            case .save(.kept)?, .restore(.live)?:
                Console.note("\(record.app): \(last.detail)")
            case .restore(.restored)? where !last.objects.isEmpty:
                for object in last.objects { Console.note("\(record.app): \(object.path): not restored: \(object.reason)") }
            default:
                break
            }
        }
        guard failures.isEmpty else {
            throw ControlError(.failure, "not \(action == "save" ? "saved completely" : "restored"): \(failures.joined(separator: "; "))")
        }
    }
}
