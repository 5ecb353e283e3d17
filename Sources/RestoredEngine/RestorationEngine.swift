import FoundationEssentials
public import Logging
public import RestoredArchive
public import RestoredState

/// Preserves and restores apps through their plugins, with one archive per
/// app in an ``ArchiveStore``.
///
/// The engine adds the store's side of the rules to the walks: an app that
/// declines to save in a session that goes on loses its stale archive, one
/// that declines while the session ends keeps it (R6, ``SaveOccasion``), a
/// restoration into a live app happens only when its plugin asks for it
/// (``RestoreReason/recovery``), a restoration needs a
/// readable archive (R7, R16), and every restoration is counted in the
/// archive before any plugin code runs and uncounted when it finishes, so a
/// restore that crashed or hung is skipped the next time unless forced (R15).
public struct RestorationEngine: Sendable {
    /// Where archives live.
    public var store: ArchiveStore
    /// Budgets and facts.
    public var configuration: EngineConfiguration
    /// Where the engine logs.
    public var logger: Logger

    /// Creates an engine.
    public init(store: ArchiveStore, configuration: EngineConfiguration = EngineConfiguration(), logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs the preservation walk and returns the archive it would write,
    /// without touching the store (nil when the app declined or failed).
    /// Autosave compares it with the stored one to write only what changed.
    public func makeArchive(of session: any PluginSession, occasion: SaveOccasion = .request) -> (archive: Archive?, report: PreservationReport) {
        let timestamp = Int64((Date().timeIntervalSince1970 * 1e9).rounded())
        return PreservationWalk(session: session, configuration: configuration, occasion: occasion).run(timestamp: timestamp)
    }

    /// Runs the restoration walk over an archive already in memory, without
    /// the store's checks and crash-loop bookkeeping (R15): for tools and
    /// benchmarks. Use ``restore(_:mode:reason:)`` to restore an app.
    public func restore(_ session: any PluginSession, from archive: Archive, reason: RestoreReason = .request) -> RestorationReport {
        RestorationWalk(session: session, archive: archive, reason: reason).run()
    }

    /// Preserves one app: walks its objects and writes its archive.
    public func preserve(_ session: any PluginSession, occasion: SaveOccasion = .request) -> PreservationReport {
        let (archive, report) = makeArchive(of: session, occasion: occasion)
        return save(archive, report: report, occasion: occasion)
    }

    /// Finishes a preservation made with ``makeArchive(of:occasion:)``:
    /// writes the archive; when the app declined, discards the stale one in
    /// a session that goes on and keeps it when the session ends (R6).
    ///
    /// A partial save (objects left out) is logged as a warning naming each
    /// with why; with `announcing` false (the same objects left out for the
    /// same reasons as the app's last save: autosave would say it every
    /// minute) it is logged at the info level, its problems at debug.
    public func save(_ archive: Archive?, report: PreservationReport, occasion: SaveOccasion = .request, announcing: Bool = true) -> PreservationReport {
        save(report: report, writing: archive.map(Write.archive), occasion: occasion, announcing: announcing)
    }

    /// ``save(_:report:occasion:announcing:)`` for an archive that arrived
    /// encoded from a plugin host and was checked in full: written as it
    /// is, with its new generation, unless it carries objects over, which
    /// are filled in from the app's archives first.
    /// With `quietIfLeavingOut` (what the app's last written save left out),
    /// a save that leaves out exactly that again is logged quietly.
    public func save(
        encoded bytes: [UInt8]?, report: PreservationReport, occasion: SaveOccasion = .request, quietIfLeavingOut previous: [OmittedObject]? = nil
    ) -> PreservationReport {
        save(report: report, writing: bytes.map(Write.encoded), occasion: occasion, announcing: true, quietIfLeavingOut: previous)
    }

    /// What a save writes.
    private enum Write {
        case archive(Archive)
        case encoded([UInt8])
    }

    private func save(
        report: PreservationReport, writing: Write?, occasion: SaveOccasion, announcing: Bool, quietIfLeavingOut previous: [OmittedObject]? = nil
    ) -> PreservationReport {
        var report = report
        let appID = report.appID
        var discarded = false
        if case .declined = report.outcome, occasion.endsSession {
            // R6 asks whether the user wants the app's state kept; while the
            // session ends, apps die around the save and a decline says only
            // that the plugin found them gone.
            report.outcome = .kept("it found nothing to save while the session ends (\(occasion)); the last archive is kept")
        } else if case .declined = report.outcome {
            // R6: the previous archive is stale.
            do {
                discarded = try store.discard(appID)
            } catch {
                report.issues.append(EngineIssue(appID: appID, path: nil, rule: "R6", message: "the stale archive could not be discarded: \(error)"))
            }
        }
        if let asked = writing {
            let writing = fillingCarriedObjects(asked, report: &report)
            do {
                let written: (generation: UInt64, byteCount: Int, lastComplete: UInt64?)
                switch writing {
                case .archive(let archive):
                    let stored = try store.writeReportingSize(archive)
                    written = (stored.archive.generation, stored.byteCount, stored.lastComplete)
                case .encoded(let bytes):
                    written = try store.write(encoded: bytes, of: appID)
                }
                report.outcome = .saved(generation: written.generation)
                report.archiveBytes = written.byteCount
                report.lastCompleteGeneration = written.lastComplete
            } catch {
                report.outcome = .failed(error.description)
                report.issues.append(EngineIssue(appID: appID, path: nil, message: error.description))
            }
        }
        log(report, occasion: occasion, announcing: announcing && (previous == nil || report.droppedObjects != previous), discarded: discarded)
        return report
    }

    /// `writing` with the objects its plugin carried over filled in from
    /// the app's archives (as they are before this save), and `report`
    /// saying what was carried and what could not be; `writing` itself when
    /// it carries nothing (the common case costs a look at the header).
    private func fillingCarriedObjects(_ writing: Write, report: inout PreservationReport) -> Write {
        let archive: Archive
        switch writing {
        case .archive(let asked):
            guard !asked.carriedObjects.isEmpty else { return writing }
            archive = asked
        case .encoded(let bytes):
            // Checked in full before it came here.
            guard ArchiveCodec.carriesObjects(bytes), let decoded = try? ArchiveCodec.decode(bytes) else { return writing }
            archive = decoded
        }
        // The newest archive, then the last complete one a partial save keeps.
        var sources: [Archive] = []
        if let newest = try? store.read(archive.appID).archive {
            sources.append(newest)
            if newest.isPartial, let complete = try? store.read(archive.appID, generation: .lastComplete).archive { sources.append(complete) }
        }
        let filled = archive.fillingCarriedObjects(from: sources)
        for omitted in filled.droppedObjects.dropFirst(archive.droppedObjects.count) {
            report.droppedObjects.append(omitted)
            report.issues.append(EngineIssue(appID: archive.appID, path: omitted.path, rule: "R6", message: omitted.reason))
        }
        report.carriedObjects = filled.carriedObjects
        report.savedObjectCount += filled.objects.count - archive.objects.count
        return .archive(filled)
    }

    /// Restores one app from its archive, with a plugin loaded in this process.
    public func restore(_ session: any PluginSession, mode: RestorationMode = .automatic, reason: RestoreReason = .session, restoresIntoRunningApp: Bool = false) -> RestorationReport {
        restore(session.appID, mode: mode, reason: reason, restoresIntoRunningApp: restoresIntoRunningApp) { encoded in
            // Checked in full when it was read: a decode that fails still runs no plugin code.
            guard let archive = try? encoded.decoded() else {
                return .failure(WalkInterruption(reason: "its archive could not be decoded", started: false))
            }
            return .success(RestorationWalk(session: session, archive: archive, reason: reason).run())
        }
    }

    /// Restores one app from its archive: the store's side of R7, R15 and
    /// R16 here, the restoration walk itself in `walk` (in this process, or
    /// in the app's plugin host). A walk that was interrupted (its process
    /// crashed or was killed at its deadline) leaves the attempt counted, as
    /// an in-process crash would: R15's crash-loop guard. For a
    /// ``RestoreReason/recovery`` the walk runs only when the plugin
    /// `restoresIntoRunningApp`; otherwise the app, live, is left alone and
    /// its archive is kept as it is.
    ///
    /// `generation` names one file to read (``ArchiveStore/Generation/lastComplete``:
    /// the user asked for the last complete archive rather than the newer
    /// partial ones); nil reads the newest usable one.
    ///
    /// The archive is read as its file's bytes, checked in full
    /// (``ArchiveStore/readEncoded(_:generation:)``), and handed to `walk`
    /// as it is: the plugin host decodes it once. The attempt is counted in
    /// the archive's record beside it (``ArchiveStore/setRestoreAttempts(_:for:)``),
    /// so a restore does not rewrite the archive.
    public func restore(
        _ appID: AppID, mode: RestorationMode = .automatic, reason: RestoreReason = .session, restoresIntoRunningApp: Bool = false,
        generation: ArchiveStore.Generation? = nil,
        walk: (EncodedArchive) -> Result<RestorationReport, WalkInterruption>
    ) -> RestorationReport {
        if reason == .recovery && !restoresIntoRunningApp {
            return log(RestorationReport(appID: appID, outcome: .skippedLiveApp))
        }
        let reading: EncodedArchiveReading
        do throws(ArchiveStoreError) {
            reading = try store.readEncoded(appID, generation: generation)
        } catch {
            if case .noArchive = error {
                return log(RestorationReport(appID: appID, outcome: .noArchive))
            }
            return log(RestorationReport(appID: appID, outcome: .unusableArchive(error.description)))
        }
        let archive = reading.archive
        var earlyIssues = reading.problems.map {
            EngineIssue(appID: appID, path: nil, rule: "R16", message: "the newest archive is unreadable (\($0)); the previous generation is used")
        }

        // R15: a restore that started and never finished blocks the automatic one.
        let attempts = reading.restoreAttempts
        if attempts > 0 && mode == .automatic {
            // The damaged record is the cause only where the header counts none.
            let damaged = reading.restoreAttemptRecordIsDamaged && archive.restoreAttempts == 0
            var report = RestorationReport(appID: appID, outcome: .skippedAfterFailedAttempt(attempts: attempts, recordIsDamaged: damaged))
            report.generation = archive.generation
            report.issues = earlyIssues
            return log(report)
        }
        // The count goes to the archive's record, for the generation that was
        // read: a newer file that could not be used (newer format, I/O error)
        // is never touched. (Saturated: a crafted count of 2^32-1 stays so,
        // never wraps to none.)
        do {
            try store.setRestoreAttempts(attempts == .max ? .max : attempts + 1, for: reading)
        } catch {
            earlyIssues.append(EngineIssue(appID: appID, path: nil, rule: "R15", message: "the restore attempt could not be recorded: \(error)"))
        }

        var report: RestorationReport
        switch walk(archive) {
        case .success(let finished):
            report = finished
        case .failure(let interruption):
            // R15: it did not finish; the count stays for the next start,
            // unless it never began (no plugin code ran). A damaged record
            // is not written back as a count of its own: the forced restore
            // was asked for, and the header's count is what holds.
            if !interruption.started {
                do {
                    try store.setRestoreAttempts(reading.restoreAttemptRecordIsDamaged ? archive.restoreAttempts : attempts, for: reading)
                } catch {
                    earlyIssues.append(EngineIssue(appID: appID, path: nil, rule: "R15", message: "the restore never began, but its attempt could not be taken back: \(error)"))
                }
            }
            report = RestorationReport(appID: appID, outcome: .failed(interruption.reason))
            report.generation = archive.generation
            report.usedPreviousGeneration = reading.source == .previous
            report.issues = earlyIssues
            return log(report)
        }
        report.generation = archive.generation
        report.usedPreviousGeneration = reading.source == .previous
        report.issues = earlyIssues + report.issues

        // R15: it finished (whatever the plugin decided), so it is no crash loop.
        do {
            try store.setRestoreAttempts(0, for: reading)
        } catch {
            report.issues.append(EngineIssue(appID: appID, path: nil, rule: "R15", message: "the finished restore could not be recorded: \(error)"))
        }
        return log(report)
    }

    private func log(_ report: PreservationReport, occasion: SaveOccasion, announcing: Bool, discarded: Bool) {
        let metadata: Logger.Metadata = ["app": "\(report.appID)"]
        // The left-out objects are said in the partial save's line (once:
        // quietly when the same as last time); every other issue is a warning.
        let omissions = report.isPartial ? report.droppedObjects : []
        for issue in report.issues where !omissions.contains(where: { $0.path == (issue.path ?? ObjectPath()) && $0.reason.hasPrefix(issue.message) }) {
            logger.warning("\(issue)", metadata: metadata)
        }
        switch report.outcome {
        case .saved(let generation) where report.isPartial:
            let kept = report.lastCompleteGeneration.map {
                "; its last complete archive (generation \($0)) is kept: restored-ctl restore --last-complete \(report.appID)"
            } ?? "; there is no complete archive of it to keep"
            let counts = "\(report.savedObjectCount) objects, generation \(generation), \(report.archiveBytes) bytes"
            if announcing {
                let list = omissions.map(\.description).joined(separator: "; ")
                logger.warning("saved \(report.appID) partially (\(counts)); left out: \(list)\(kept)", metadata: metadata)
            } else {
                logger.info("saved \(report.appID) partially (\(counts)), leaving out the same \(omissions.count) object(s) as before\(kept)", metadata: metadata)
            }
        case .saved(let generation):
            logger.info("saved \(report.appID): \(report.savedObjectCount) objects, generation \(generation), \(report.archiveBytes) bytes", metadata: metadata)
        case .declined where discarded:
            logger.info("\(report.appID) declined to save; its previous archive is discarded", metadata: metadata)
        case .declined:
            // Nothing to discard: an app with nothing open, said at every
            // autosave while it stays so, is no news.
            logger.log(level: occasion == .autosave ? .debug : .info, "\(report.appID) declined to save; it had no archive to discard", metadata: metadata)
        case .failed(let reason):
            logger.error("saving \(report.appID) failed: \(reason)", metadata: metadata)
        case .kept(let reason):
            logger.log(level: occasion == .autosave ? .debug : .info, "\(report.appID) not saved: \(reason)", metadata: metadata)
        }
        if case .saved = report.outcome, !report.carriedObjects.isEmpty {
            let list = report.carriedObjects.map(\.description).joined(separator: ", ")
            logger.log(
                level: announcing && occasion != .autosave ? .notice : .info,
                "\(report.appID): its plugin could not say \(list) now; carried over from its last archive, as saved then",
                metadata: metadata
            )
        }
    }

    @discardableResult
    private func log(_ report: RestorationReport) -> RestorationReport {
        let metadata: Logger.Metadata = ["app": "\(report.appID)"]
        // An object not restored is said once, in its "not restored" line.
        let leftOut = Set(report.notRestored.map(\.path))
        for issue in report.issues where issue.path.map({ !leftOut.contains($0) }) ?? true {
            logger.warning("\(issue)", metadata: metadata)
        }
        switch report.outcome {
        case .restored:
            logger.info("restored \(report.appID): \(report.restoredObjectCount) objects, \(report.notRestored.count) not restored", metadata: metadata)
            for object in report.notRestored {
                logger.warning("\(report.appID): not restored: \(object)", metadata: metadata)
            }
        case .noArchive:
            logger.debug("\(report.appID) has no archive", metadata: metadata)
        case .unusableArchive(let reason):
            logger.error("\(reason)", metadata: metadata)
        case .skippedAfterFailedAttempt(let attempts, let recordIsDamaged):
            if recordIsDamaged {
                logger.warning("skipped restoring \(report.appID): its record of restore attempts (\(store.appDirectory(for: report.appID).appending(RestoreAttemptRecord.fileName))) cannot be read, so a restore may have started and not finished (R15); restore it with force to try again, which writes the record anew (restored-ctl restore --force \(report.appID))", metadata: metadata)
            } else {
                logger.warning("skipped restoring \(report.appID): the last restore (\(attempts) attempt) did not finish; restore it with force to try again (restored-ctl restore --force \(report.appID))", metadata: metadata)
            }
        case .declined:
            logger.info("\(report.appID) declined to restore", metadata: metadata)
        case .failed(let reason):
            logger.error("restoring \(report.appID) failed: \(reason)", metadata: metadata)
        case .skippedLiveApp:
            logger.info("not restoring \(report.appID): restored started again while the session runs and the app is live; its archive is kept", metadata: metadata)
        }
        return report
    }
}
