import Logging
import RestoredArchive
import RestoredEngine
import RestoredHostProtocol
import RestoredSystemd
import SystemSupport

/// Serves restored's requests for one plugin: starts it, then runs each
/// walk beside it and answers with the finished result.
///
/// The walks are the engine's own (``RestorationEngine``), over the plugin
/// loaded in this process; only their results cross to restored. For
/// autosave, the fingerprint of the last archive sent is kept with a token,
/// so an unchanged state is answered with `unchanged` instead of a copy of
/// the archive.
struct HostServer {
    let channel: FrameChannel
    let pluginFile: String

    /// Runs until restored closes the channel; returns the exit status.
    func run() -> Int32 {
        let start: HostStart
        do {
            guard case .start(let request) = try HostRequest(try channel.receive(maximumLength: HostProtocol.maximumRequestLength)) else {
                PluginHostMain.writeError("restored-plugin-host: the first request was not start")
                return 1
            }
            start = request
        } catch .versionMismatch(let version, let restored) {
            // An upgrade replaced this helper while an older restored runs:
            // say so in a line restored shows, and the status it knows.
            PluginHostMain.writeError(
                "restored-plugin-host \(RestoredVersion.string) speaks protocol version \(HostProtocol.version); the restored\(restored.map { " \($0)" } ?? "") that started it speaks \(version): it was upgraded while it runs, and serves this plugin once it restarts"
            )
            return HostProtocol.versionMismatchStatus
        } catch {
            if error != .closed { PluginHostMain.writeError("restored-plugin-host: \(error)") }
            return error == .closed ? 0 : 1
        }
        SystemdLogHandler.bootstrap(logLevel: Logger.Level(rawValue: start.logLevel) ?? .info, syslogIdentifier: "restored")
        let logger = Logger(label: "restored-plugin-host")
        if start.restoredVersion != RestoredVersion.string {
            // Same protocol, another version: this helper serves; restored
            // sees the same mismatch in `ready` and restarts into this version.
            logger.notice("restored \(start.restoredVersion) started this plugin host of restored \(RestoredVersion.string); it serves \(start.pluginFile) until restored restarts into the new version")
        }
        if start.memoryLimit > 0 {
            var limit = rlimit(rlim_cur: rlim_t(start.memoryLimit), rlim_max: rlim_t(start.memoryLimit))
            if setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &limit) != 0 {
                logger.warning("cannot limit this plugin host's memory: \(String(cString: strerror(errno)))")
            }
        }

        let loader = PluginLoader(directories: [], sdkRuntime: nil)
        let plugin: LoadedPlugin
        switch loader.loadPlugin(at: .init(start.pluginFile)) {
        case .success(let loaded):
            plugin = loaded
        case .failure(let refusal):
            return reply(.refused(refusal.reason)) ? 0 : 1
        }
        let identity = PluginIdentity(appID: plugin.appID, appVersion: plugin.appVersion, displayName: plugin.displayName, abiVersion: plugin.abiVersion, traits: plugin.traits)
        guard reply(.ready(identity)) else { return 1 }

        // The walks never touch a store: restored reads and writes archives.
        let engine = RestorationEngine(store: ArchiveStore(directory: "/"), configuration: start.configuration, logger: logger)
        var walks = Walks(plugin: plugin, engine: engine, logger: logger)
        while true {
            // One request at a time, in a call of its own: what it and its
            // answer hold (a restore's archive, a save's encoded one) is
            // freed when the call returns, before the heap is trimmed.
            if let status = serveNextRequest(&walks) { return status }
            // What the walk freed (its coder's buffers, the archive it
            // encoded or decoded) goes back to the system once the host is
            // idle: no request within a second (a login's restores and a
            // suspend's saves come in bursts, and the other hosts of the
            // burst need the CPU more). A host idles most of its life.
            if !Self.requestArrives(within: 1000) { HeapRelease.now() }
        }
    }

    /// What the host keeps from one walk to the next.
    private struct Walks {
        let plugin: LoadedPlugin
        let engine: RestorationEngine
        let logger: Logger
        /// The last archive sent, by its content's fingerprint: what an
        /// autosave compares with, without keeping the archive.
        var lastSent: (token: UInt64, content: ArchiveFingerprint)?
        var nextToken: UInt64 = 1
        /// Created at the first walk (a crash in create is that walk's),
        /// and tried again at the next one if create failed.
        var session: InProcessPluginSession?

        init(plugin: LoadedPlugin, engine: RestorationEngine, logger: Logger) {
            self.plugin = plugin
            self.engine = engine
            self.logger = logger
        }

        /// The answer to a walk's request: its result, or why it could not run.
        mutating func answer(_ request: HostRequest) -> HostReply {
            let session: InProcessPluginSession
            if let existing = self.session {
                session = existing
            } else {
                do {
                    session = try plugin.makeSession(options: request.options, logger: logger)
                    self.session = session
                } catch {
                    return request.failure("the plugin could not start: \(error)", appID: plugin.appID)
                }
            }
            switch request {
            case .start:
                preconditionFailure("a start request is no walk")
            case .save(let save):
                session.walkDeadline = HostServer.deadline(leaving: save.timeLeft)
                let (archive, report) = engine.makeArchive(of: session, occasion: save.occasion)
                let encoded = archive.map(ArchiveCodec.encode)
                let content = encoded.map(ArchiveFingerprint.init(ofEncoded:))
                if let content, let token = save.unlessSameAs, let kept = lastSent, kept.token == token, content == kept.content {
                    return .unchanged
                }
                let token = nextToken
                nextToken += 1
                if let content { lastSent = (token, content) }
                return .saved(HostSaveResult(token: token, archive: encoded, report: report))
            case .restore(let bytes, let reason, _, let timeLeft):
                session.walkDeadline = HostServer.deadline(leaving: timeLeft)
                do {
                    return .restored(engine.restore(session, from: try ArchiveCodec.decode(bytes), reason: reason))
                } catch {
                    return .restored(RestorationReport(appID: plugin.appID, outcome: .failed("restored sent an unreadable archive: \(error)")))
                }
            }
        }
    }

    /// Receives restored's next request and answers it; the exit status
    /// when the host stops there (restored closed the channel or sent what
    /// the host cannot serve), nil to go on.
    private func serveNextRequest(_ walks: inout Walks) -> Int32? {
        let request: HostRequest
        do {
            request = try HostRequest(try channel.receive(maximumLength: HostProtocol.maximumRequestLength))
        } catch {
            if error == .closed { return 0 }
            walks.logger.error("restored sent what this helper cannot read (\(error)); stopping", metadata: ["app": "\(walks.plugin.appID)"])
            return 1
        }
        guard request.isWalk else {
            walks.logger.error("a second start request; stopping", metadata: ["app": "\(walks.plugin.appID)"])
            return 1
        }
        return reply(walks.answer(request)) ? nil : 1
    }

    /// Whether restored's next request starts within `milliseconds`
    /// (the channel is readable, or closed).
    static func requestArrives(within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: HostProtocol.channelDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { return true }
        }
    }

    /// The deadline a plugin's waits keep to, for a walk restored stops
    /// `timeLeft` from now: an eighth of it (at most half a second) stays
    /// for what follows the plugin's last wait (encoding, the reply).
    static func deadline(leaving timeLeft: Duration?) -> ContinuousClock.Instant? {
        guard let timeLeft else { return nil }
        return .now + timeLeft - min(timeLeft / 8, .milliseconds(500))
    }

    /// Sends a reply; false when restored is gone.
    private func reply(_ answer: HostReply) -> Bool {
        let frame = answer.frame
        do {
            try channel.send(frame.kind, frame.body, blob: frame.blob)
            return true
        } catch {
            return false
        }
    }
}

extension HostRequest {
    /// The app's options a walk carries.
    var options: [String: String] {
        switch self {
        case .start: [:]
        case .save(let save): save.options
        case .restore(_, _, let options, _): options
        }
    }

    /// Whether this request runs a walk.
    var isWalk: Bool {
        if case .start = self { false } else { true }
    }

    /// The reply of a walk that could not run.
    func failure(_ reason: String, appID: AppID) -> HostReply {
        if case .restore = self {
            return .restored(RestorationReport(appID: appID, outcome: .failed(reason)))
        }
        return .saved(HostSaveResult(token: 0, archive: nil, report: PreservationReport(appID: appID, outcome: .failed(reason))))
    }
}

#if canImport(Glibc)
import Glibc
#endif
