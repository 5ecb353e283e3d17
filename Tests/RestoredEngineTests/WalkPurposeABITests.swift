import CRestoredPlugin
import RestoredState
import Testing

/// The Swift names of the C ABI's walk occasions, reasons, save decisions
/// and plugin traits carry the header's numbers: a C plugin and a Swift one
/// read the same.
@Suite struct WalkPurposeABITests {
    @Test("SaveOccasion, RestoreReason, SaveDecision and PluginTraits have the values of restored/plugin.h")
    func valuesMatchTheHeader() {
        let occasions: [(SaveOccasion, restored_save_occasion)] = [
            (.request, RESTORED_SAVE_REQUEST), (.autosave, RESTORED_SAVE_AUTOSAVE), (.suspend, RESTORED_SAVE_SUSPEND),
            (.shutdown, RESTORED_SAVE_SHUTDOWN), (.sessionEnd, RESTORED_SAVE_SESSION_END), (.daemonStop, RESTORED_SAVE_DAEMON_STOP),
        ]
        #expect(occasions.count == SaveOccasion.allCases.count)
        for (swift, c) in occasions { #expect(swift.rawValue == c.rawValue, "\(swift)") }
        let reasons: [(RestoreReason, restored_restore_reason)] = [
            (.session, RESTORED_RESTORE_SESSION), (.recovery, RESTORED_RESTORE_RECOVERY), (.request, RESTORED_RESTORE_REQUEST),
        ]
        #expect(reasons.count == RestoreReason.allCases.count)
        for (swift, c) in reasons { #expect(swift.rawValue == c.rawValue, "\(swift)") }
        let decisions: [(SaveDecision, restored_save_decision)] = [
            (.save, RESTORED_SAVE_DECISION_SAVE), (.decline, RESTORED_SAVE_DECISION_DECLINE), (.keepLastArchive, RESTORED_SAVE_DECISION_KEEP),
        ]
        #expect(decisions.count == SaveDecision.allCases.count)
        for (swift, c) in decisions { #expect(swift.rawValue == c.rawValue, "\(swift)") }
        #expect(PluginTraits.restoresIntoRunningApp.rawValue == RESTORED_PLUGIN_RESTORES_INTO_RUNNING_APP.rawValue)
        #expect(PluginTraits.needsGraphicalSession.rawValue == RESTORED_PLUGIN_NEEDS_GRAPHICAL_SESSION.rawValue)
    }

    @Test("Only the endings of the session keep an archive a plugin declined to replace (R6)")
    func endsSession() {
        #expect(SaveOccasion.allCases.filter(\.endsSession) == [.shutdown, .sessionEnd])
    }
}
