public import Logging
public import RestoredArchive
public import RestoredEngine
public import RestoredHostProtocol
public import RestoredState
public import SystemPackage
import Synchronization

/// One plugin file, run in a helper process of its own (`restored-plugin-host`).
///
/// The helper stays up between walks (starting one costs more than the walk
/// of a typical app: see `docs/benchmarks.md`) and is started again for
/// the next walk after it died. Every walk is one request and one reply with
/// a deadline: a helper that crashes or exits costs that walk only; one that
/// has not answered at the deadline, or that sends anything but the
/// protocol, is killed with SIGKILL so nothing keeps running. A plugin whose
/// helper fails in ``Configuration/quarantineAfter`` walks in a row is
/// quarantined: not started again until its file changes. A plugin file
/// that changed on disk (a new build) gets a new helper at the next walk.
///
/// Walks are blocking and run one at a time per host (the app's queue);
/// ``stop()`` and the properties may be used from any thread.
public final class PluginHost: Sendable {
    /// How plugin hosts are started.
    public struct Configuration: Sendable {
        /// The `restored-plugin-host` executable.
        public var executable: FilePath
        /// The helper's environment.
        public var environment: [String: String]
        /// The helper's log level.
        public var logLevel: Logger.Level
        /// Budgets and system version of the walks.
        public var engine: EngineConfiguration
        /// How long loading a plugin may take.
        public var startTimeout: Duration
        /// Failed walks in a row that quarantine a plugin.
        public var quarantineAfter: Int
        /// The most memory a helper's data may take (`RLIMIT_DATA`), in
        /// bytes; a plugin that leaks without bound fails there, not the machine.
        public var memoryLimit: UInt64
        /// Where quarantines are kept across restarts; nil keeps them in memory.
        public var quarantineRecord: QuarantineRecord?
        /// Told, in one line, of every helper of another restored version
        /// (an upgrade while restored runs: ``HostProtocol``), which restored
        /// answers by restarting into the new version.
        public var onVersionMismatch: @Sendable (String) -> Void = { _ in }

        /// Creates a configuration; the environment loses systemd's
        /// variables meant for restored alone (NOTIFY_SOCKET, WATCHDOG_*, LISTEN_*).
        public init(
            executable: FilePath, environment: [String: String], logLevel: Logger.Level = .info,
            engine: EngineConfiguration = EngineConfiguration(), startTimeout: Duration = .seconds(10), quarantineAfter: Int = 3,
            memoryLimit: UInt64 = 1 << 30, quarantineRecord: QuarantineRecord? = nil
        ) {
            self.executable = executable
            self.environment = environment.filter { key, _ in
                !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"].contains(key)
            }
            self.logLevel = logLevel
            self.engine = engine
            self.startTimeout = startTimeout
            self.quarantineAfter = quarantineAfter
            self.memoryLimit = memoryLimit
            self.quarantineRecord = quarantineRecord
        }
    }

    /// What a save gave.
    public enum SaveAnswer: Sendable {
        /// The walk's result: an archive to write (or none: declined, failed) and its token.
        case saved(HostSaveResult, token: ArchiveToken)
        /// The state equals the archive of the token asked about.
        case unchanged
    }

    /// Names an archive a helper sent, across restarts of the helper.
    public struct ArchiveToken: Hashable, Sendable {
        let instance: UInt64
        let token: UInt64
    }

    /// The plugin file.
    public let file: FilePath
    private let configuration: Configuration
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var process: HelperProcess?
        var instance: UInt64 = 0
        var identity: PluginIdentity?
        var fileIdentity: FileIdentity?
        var consecutiveFaults = 0
        var lastFault: PluginHostFault?
        var quarantine: (file: FileIdentity?, reason: String)?
        var options: [String: String] = [:]
        /// The running helper created the plugin with other options.
        var optionsChanged = false
        /// Variables over the configuration's environment for the helpers
        /// started from now on (``desktopEnvironment``).
        var desktopEnvironment: [String: String] = [:]
        /// The running helper was started with another environment.
        var environmentChanged = false
        /// The running helper has had a walk (and so created the plugin).
        var processHasWalked = false
        /// The new build (plugin file, plugin host file) that could not
        /// start while the running helper serves on: not tried again until
        /// one of the two files changes.
        var blockedBuild: BuildIdentity?
    }

    /// The files a helper is started from.
    private struct BuildIdentity: Hashable {
        var plugin: FileIdentity?
        var host: FileIdentity?
    }

    /// The files a new helper would be started from now.
    private var currentBuild: BuildIdentity {
        BuildIdentity(plugin: FileIdentity(of: file), host: FileIdentity(of: configuration.executable))
    }

    /// Creates the host of `file`; nothing runs until ``start()`` or a walk.
    /// A file in the configuration's quarantine record starts quarantined,
    /// with the identity it had.
    public init(file: FilePath, configuration: Configuration, logger: Logger) {
        self.file = file
        self.configuration = configuration
        self.logger = logger
        if let entry = configuration.quarantineRecord?.entry(for: file) {
            state.withLock { state in
                state.quarantine = (entry.fileIdentity, entry.reason)
                state.identity = entry.identity
                state.fileIdentity = entry.fileIdentity
                state.consecutiveFaults = configuration.quarantineAfter
            }
        }
    }

    /// The app's options, handed to the plugin's `create` at the first walk
    /// of each helper; set them once the plugin's app is known. New options
    /// end the running helper before the next walk, which starts one that
    /// creates the plugin with them.
    public var options: [String: String] {
        get { state.withLock { $0.options } }
        set {
            state.withLock { state in
                guard state.options != newValue else { return }
                state.options = newValue
                // A helper that has not walked yet creates the plugin with them.
                state.optionsChanged = state.process != nil && state.processHasWalked
            }
        }
    }

    /// The desktop's variables (`DISPLAY`, `WAYLAND_DISPLAY` ...), over the
    /// configuration's environment, for the helpers started from now on:
    /// set once the graphical session is up, for a plugin that needs it.
    /// New ones end the running helper before the next walk.
    public var desktopEnvironment: [String: String] {
        get { state.withLock { $0.desktopEnvironment } }
        set {
            state.withLock { state in
                guard state.desktopEnvironment != newValue else { return }
                state.desktopEnvironment = newValue
                state.environmentChanged = state.process != nil
            }
        }
    }

    deinit {
        stop()
    }

    /// The plugin's identity, once a helper has loaded it.
    public var identity: PluginIdentity? { state.withLock { $0.identity } }

    /// The helper's pid while one runs.
    public var pid: Int32? { state.withLock { $0.process?.pid } }

    /// Why the plugin is quarantined, if it is; nil once its file changed
    /// (the next walk tries the new build).
    public var quarantineReason: String? {
        guard let quarantine = state.withLock({ $0.quarantine }) else { return nil }
        return quarantine.file == FileIdentity(of: file) ? quarantine.reason : nil
    }

    /// The last fault of a helper, if the last walk had one.
    public var lastFault: PluginHostFault? { state.withLock { $0.lastFault } }

    /// Whether the file changed since the running helper loaded it (the
    /// next walk starts a new helper for it).
    public var hasChangedOnDisk: Bool {
        let loaded = state.withLock { $0.fileIdentity }
        return loaded != nil && FileIdentity(of: file) != loaded
    }

    /// Starts a helper and loads the plugin: its identity, or why it was refused.
    public func start() -> Result<PluginIdentity, PluginStartFailure> {
        let fileIdentity = FileIdentity(of: file)
        let quarantine = state.withLock { state -> String? in
            if let quarantine = state.quarantine, quarantine.file == fileIdentity { return quarantine.reason }
            // A new build starts with a clean record.
            if state.quarantine != nil || (state.fileIdentity != nil && state.fileIdentity != fileIdentity) {
                state.quarantine = nil
                state.consecutiveFaults = 0
            }
            return nil
        }
        if let quarantine {
            return .failure(.fault(.quarantined(since: quarantine)))
        }
        configuration.quarantineRecord?.remove(file)
        let process: HelperProcess
        do {
            let desktop = state.withLock { $0.desktopEnvironment }
            process = try HelperProcess.spawn(
                executable: configuration.executable, plugin: file, environment: configuration.environment.merging(desktop) { _, desktop in desktop }
            )
        } catch {
            return .failure(.fault(.spawnFailed("\(configuration.executable.string): \(error)")))
        }
        let start = HostStart(pluginFile: file.string, logLevel: configuration.logLevel.rawValue, configuration: configuration.engine,
            memoryLimit: configuration.memoryLimit
        )
        let answer = exchange(.start(start), with: process, walk: "start", deadline: .now + configuration.startTimeout, appID: nil)
        switch answer {
        case .success(.ready(let identity, let restoredVersion)):
            if restoredVersion != RestoredVersion.string {
                // It speaks this protocol, so it serves until the restart.
                let mismatch = "\(configuration.executable.string) is restored \(restoredVersion), this restored \(RestoredVersion.string)"
                logger.notice("\(identity.appID): its plugin host is of another restored (\(mismatch)); it serves until restored restarts into the new version", metadata: ["app": "\(identity.appID)"])
                configuration.onVersionMismatch(mismatch)
            }
            let previous = state.withLock { state in
                defer {
                    state.process = process
                    state.optionsChanged = false
                    state.environmentChanged = false
                    state.processHasWalked = false
                    state.instance += 1
                    state.identity = identity
                    state.fileIdentity = fileIdentity
                    state.quarantine = nil
                    state.blockedBuild = nil
                }
                return state.process
            }
            previous.map(Self.end)
            logger.debug("plugin host \(process.pid) serves \(identity.appID) from \(file.string)", metadata: ["app": "\(identity.appID)"])
            return .success(identity)
        case .success(.refused(let reason)):
            Self.end(process)
            return .failure(.refused(reason))
        case .success:
            process.kill()
            process.reap(within: .seconds(1))
            return .failure(.fault(.protocolViolation("it did not answer start with ready or refused")))
        case .failure(let fault):
            if case .versionMismatch(let what) = fault { configuration.onVersionMismatch(what) }
            return .failure(.fault(fault))
        }
    }

    /// Runs the preservation walk for `occasion`; with `unlessSameAs`, an
    /// unchanged state answers ``SaveAnswer/unchanged``.
    public func save(
        for occasion: SaveOccasion = .request, unlessSameAs token: ArchiveToken?, deadline: ContinuousClock.Instant
    ) -> Result<SaveAnswer, PluginHostFault> {
        let options = self.options
        return walk("save", deadline: deadline) { instance in
            .save(HostSaveRequest(
                occasion: occasion, unlessSameAs: token?.instance == instance ? token?.token : nil, options: options,
                timeLeft: ContinuousClock.now.duration(to: deadline)
            ))
        } answer: { reply, instance in
            switch reply {
            case .saved(let result): .saved(result, token: ArchiveToken(instance: instance, token: result.token))
            case .unchanged: token?.instance == instance ? .unchanged : nil
            default: nil
            }
        }
    }

    /// Runs the restoration walk over `archive` for `reason`.
    public func restore(_ archive: Archive, reason: RestoreReason = .request, deadline: ContinuousClock.Instant) -> Result<RestorationReport, PluginHostFault> {
        restore(encoded: ArchiveCodec.encode(archive), reason: reason, deadline: deadline)
    }

    /// Runs the restoration walk over the archive `bytes` encode (a whole
    /// archive file, as read) for `reason`: the host decodes them.
    public func restore(encoded bytes: [UInt8], reason: RestoreReason = .request, deadline: ContinuousClock.Instant) -> Result<RestorationReport, PluginHostFault> {
        let options = self.options
        return walk("restore", deadline: deadline) { _ in
            .restore(archive: bytes, reason: reason, options: options, timeLeft: ContinuousClock.now.duration(to: deadline))
        } answer: { reply, _ in
            if case .restored(let report) = reply { report } else { nil }
        }
    }

    /// Ends the helper: it reads the end of its requests, destroys the
    /// plugin's instance and exits; one that does not within a second is killed.
    public func stop() {
        let process = state.withLock { state in
            defer { state.process = nil }
            return state.process
        }
        process.map(Self.end)
    }

    // MARK: Walks

    private func walk<Answer: Sendable>(
        _ name: String, deadline: ContinuousClock.Instant,
        request: (UInt64) -> HostRequest, answer: (HostReply, UInt64) -> Answer?
    ) -> Result<Answer, PluginHostFault> {
        let running: (process: HelperProcess, instance: UInt64, appID: AppID?)
        switch ensureRunning() {
        case .success(let value): running = value
        case .failure(let fault): return .failure(record(fault))
        }
        state.withLock { $0.processHasWalked = true }
        switch exchange(request(running.instance), with: running.process, walk: name, deadline: deadline, appID: running.appID) {
        case .success(let reply):
            guard let value = answer(reply, running.instance) else {
                running.process.kill()
                running.process.reap(within: .seconds(1))
                forget(running.process)
                return .failure(record(.protocolViolation("it answered a \(name) with something else")))
            }
            state.withLock { state in
                state.consecutiveFaults = 0
                state.lastFault = nil
            }
            return .success(value)
        case .failure(let fault):
            forget(running.process)
            return .failure(record(fault))
        }
    }

    /// The running helper, started (again) when there is none or the file changed.
    private func ensureRunning() -> Result<(process: HelperProcess, instance: UInt64, appID: AppID?), PluginHostFault> {
        let current = state.withLock { state in (state.process, state.instance, state.identity, state.fileIdentity, state.optionsChanged, state.environmentChanged, state.blockedBuild) }
        var fallback: HelperProcess?
        if let process = current.0 {
            if process.reapIfExited() == nil, !current.4, !current.5, FileIdentity(of: file) == current.3 || current.6 == currentBuild {
                return .success((process, current.1, current.2?.appID))
            }
            if current.4, process.ending == nil {
                logger.notice("\(appName): its options changed; starting a new plugin host with them", metadata: metadata)
            } else if current.5, process.ending == nil {
                logger.info("\(appName): the desktop is there; starting a new plugin host with its display", metadata: metadata)
            } else if let ending = process.ending {
                logger.warning("\(appName): its plugin host had ended between walks (\(Self.describe(ending))); starting it again", metadata: metadata)
            } else {
                logger.notice("\(appName): the plugin file \(file.string) changed; starting a new plugin host for it", metadata: metadata)
            }
            // A running helper whose file changed is ended only once the new
            // one is ready: during an upgrade the new one may be of a restored
            // this one cannot speak to, and the running one (the old build,
            // still loaded) serves until restored restarts, the stop's save too.
            if process.ending == nil, !current.4, !current.5 {
                fallback = process
            } else {
                forget(process)
            }
        }
        switch start() {
        case .success(let identity):
            if let previous = current.2?.appID, previous != identity.appID {
                stop()
                return .failure(.protocolViolation("the plugin file now serves \(identity.appID), not \(previous); reload the plugins"))
            }
            let started = state.withLock { ($0.process, $0.instance) }
            guard let process = started.0 else { return .failure(.spawnFailed("stopped while starting")) }
            return .success((process, started.1, identity.appID))
        case .failure(.fault(.versionMismatch(let what))) where fallback != nil:
            state.withLock { $0.blockedBuild = currentBuild }
            logger.warning("\(appName): the new plugin host is of another restored (\(what)); the running one serves until restored restarts into the new version", metadata: metadata)
            return .success((fallback!, current.1, current.2?.appID))
        case .failure(.refused(let reason)) where fallback != nil:
            // During an upgrade the plugin may be renamed into place before
            // the host that can load it: the running build serves meanwhile.
            state.withLock { $0.blockedBuild = currentBuild }
            logger.warning("\(appName): \(PluginRefusal(file: file, reason: reason).description); the plugin host of the build before serves until the file or its host changes", metadata: metadata)
            return .success((fallback!, current.1, current.2?.appID))
        case .failure(.fault(let fault)):
            fallback.map(forget)
            return .failure(fault)
        case .failure(.refused(let reason)):
            return .failure(.spawnFailed(PluginRefusal(file: file, reason: reason).description))
        }
    }

    /// One request and its reply; any fault leaves the process killed and reaped.
    private func exchange(
        _ request: HostRequest, with process: HelperProcess, walk: String, deadline: ContinuousClock.Instant, appID: AppID?
    ) -> Result<HostReply, PluginHostFault> {
        let started = ContinuousClock.now
        let frame = request.frame
        do throws(HostProtocolError) {
            try process.channel.send(frame.kind, frame.body, blob: frame.blob, deadline: deadline)
            let frame = try process.channel.receive(maximumLength: HostProtocol.maximumReplyLength, deadline: deadline)
            let reply = try HostReply(frame, appID: appID ?? Self.placeholderAppID)
            if case .crashed(let signal, let callback) = reply {
                process.reap(within: .seconds(2))
                return .failure(.crashed(signal: signal, callback: callback))
            }
            return .success(reply)
        } catch .timedOut {
            process.kill()
            process.reap(within: .seconds(2))
            return .failure(.deadlinePassed(walk: walk, after: ContinuousClock.now - started))
        } catch .versionMismatch(let version, let restored) {
            process.kill()
            process.reap(within: .seconds(2))
            return .failure(.versionMismatch(
                "\(configuration.executable.string) is restored \(restored ?? "of an unknown version") speaking protocol \(version), this restored \(RestoredVersion.string) speaks \(HostProtocol.version)"
            ))
        } catch .closed {
            switch process.reap(within: .seconds(2)) {
            case .signaled(let signal): return .failure(.crashed(signal: signal, callback: nil))
            case .exited(HostProtocol.versionMismatchStatus) where walk == "start" && (try? RuntimeRecord(readingNotesOf: configuration.executable)) != RuntimeRecord.current:
                // It could not read this restored's start: a helper of
                // another build (not a plugin that exits with 76 as it
                // loads), whose line on standard error (the journal) says which.
                return .failure(.versionMismatch(
                    "\(configuration.executable.string) does not speak protocol \(HostProtocol.version) of this restored \(RestoredVersion.string)"
                ))
            case .exited(let status): return .failure(.exited(status: status))
            }
        } catch {
            process.kill()
            process.reap(within: .seconds(2))
            return .failure(.protocolViolation(error.description))
        }
    }

    /// Counts a fault; the ``Configuration/quarantineAfter``th in a row quarantines the plugin.
    private func record(_ fault: PluginHostFault) -> PluginHostFault {
        guard fault.countsTowardsQuarantine else { return fault }
        let quarantined = state.withLock { state -> Bool in
            state.lastFault = fault
            state.consecutiveFaults += 1
            guard state.consecutiveFaults >= configuration.quarantineAfter else { return false }
            state.quarantine = (FileIdentity(of: file), "its plugin host failed in \(state.consecutiveFaults) walks in a row, the last time: \(fault)")
            return true
        }
        if quarantined, let record = configuration.quarantineRecord {
            let (quarantine, identity) = state.withLock { ($0.quarantine, $0.identity) }
            if let quarantine, let fileIdentity = quarantine.file {
                record.add(file, fileIdentity: fileIdentity, identity: identity, reason: quarantine.reason)
            }
        }
        if quarantined {
            logger.error("\(appName): quarantined: \(file.string) failed in \(configuration.quarantineAfter) walks in a row (the last: \(fault)); it is not started again until the file changes", metadata: metadata)
        }
        return fault
    }

    private func forget(_ process: HelperProcess) {
        state.withLock { state in
            if state.process === process { state.process = nil }
        }
        Self.end(process)
    }

    private static func end(_ process: HelperProcess) {
        process.closeChannel()
        process.reap(within: .seconds(1))
    }

    private var appName: String { identity?.appID.rawValue ?? file.string }
    private var metadata: Logger.Metadata { identity.map { ["app": "\($0.appID)"] } ?? [:] }

    private static func describe(_ ending: HelperProcess.Ending) -> String {
        switch ending {
        case .exited(let status): "exit status \(status)"
        case .signaled(let signal): PluginHostFault.signalName(signal)
        }
    }

    /// Used to read a `start` reply, which names its own app.
    private static let placeholderAppID = try! AppID("org.restored.Unknown")
}
