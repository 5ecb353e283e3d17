import RestoredDBus
import Testing

@testable import RestoredControl

/// `restored-ctl apps`' LAST RESULT column, from the daemon's `ListApps` rows.
struct AppRecordTests {
    func row(restoring: Bool = false, saving: String = "", last: (action: String, trigger: String, outcome: String)? = nil) -> AppRecord {
        var fields: [String: DBusValue] = ["App": .string("org.example.A"), "Restoring": .boolean(restoring), "Saving": .string(saving)]
        if let last {
            fields["LastAction"] = .string(last.action)
            fields["LastTrigger"] = .string(last.trigger)
            fields["LastOutcome"] = .string(last.outcome)
        }
        return AppRecord(daemonRow: fields)
    }

    @Test("A restore or a save under way is said first (a restore at a desktop's start waits for its apps to stay up), with the last result after it; none under way: the last result alone, or -")
    func underWay() {
        #expect(row().lastResultSummary == "-")
        #expect(row(restoring: true).lastResultSummary == "restoring now")
        #expect(row(saving: "sleep", last: ("restore", "login", "restored")).lastResultSummary == "saving now (sleep); last: restored (login)")
        #expect(row(last: ("save", "autosave", "saved")).lastResultSummary == "saved (autosave)")
    }
}
