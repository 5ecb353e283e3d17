import RestoredDBus

/// The user manager's word on the desktop: `graphical-session.target`
/// going active or stopping, and jobs of targets done (a desktop starting
/// its session targets).
///
/// The manager sends its unit and job signals once a client has called
/// `Subscribe`; restored matches only the target's `PropertiesChanged` and
/// `JobRemoved`, so it wakes for nothing else. The manager sends nothing
/// when its environment changes (`SetEnvironment`, measured on systemd
/// 252): ``DesktopSession`` looks again after these signals for that.
struct UserManagerWatch: Sendable {
    static let busName = "org.freedesktop.systemd1"
    static let managerPath = "/org/freedesktop/systemd1"
    static let managerInterface = "org.freedesktop.systemd1.Manager"
    /// The object of `graphical-session.target` (systemd escapes `-` as `_2d`, `.` as `_2e`).
    static let targetPath = "/org/freedesktop/systemd1/unit/graphical_2dsession_2etarget"

    /// The target's `PropertiesChanged` signals.
    private let target: AsyncStream<DBusMessage>
    /// The manager's `JobRemoved` signals.
    private let jobs: AsyncStream<DBusMessage>

    /// Subscribes to the manager's signals on `bus`; nil when the manager
    /// is not on it.
    static func subscribe(on bus: DBusConnection) async -> UserManagerWatch? {
        guard let target = try? await bus.signals(matching: DBusMatchRule(
            sender: busName, path: targetPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"
        )), let jobs = try? await bus.signals(matching: DBusMatchRule(
            sender: busName, path: managerPath, interface: managerInterface, member: "JobRemoved"
        )) else { return nil }
        guard (try? await bus.call(destination: busName, path: managerPath, interface: managerInterface, member: "Subscribe", timeout: .seconds(2))) != nil else {
            return nil
        }
        return UserManagerWatch(target: target, jobs: jobs)
    }

    /// Hands each news of the manager to `send` until the bus closes or
    /// the task is cancelled.
    func run(send: @escaping @Sendable (DesktopSession.Signal) -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                var reading = TargetReading()
                for await signal in target {
                    guard let arguments = try? signal.arguments(), arguments.first?.stringValue == "org.freedesktop.systemd1.Unit",
                          let properties = arguments.dropFirst().first?.stringKeyedValue, let active = reading.news(in: properties)
                    else { continue }
                    send(.target(active: active))
                }
            }
            group.addTask {
                for await signal in jobs {
                    // A desktop starts its session targets (gnome-session's,
                    // plasma-workspace.target, sway-session.target ...); services
                    // and the timers of a lingering user's podman or syncthing
                    // are no news of it.
                    guard let unit = (try? signal.arguments())?.dropFirst(2).first?.stringValue, unit.hasSuffix(".target") else { continue }
                    send(.look("the user manager finished a job of \(unit)", settling: true))
                }
            }
        }
    }

    /// The news in the target's `PropertiesChanged` signals: a change of
    /// its state, not each signal.
    ///
    /// The manager sends the unit's properties whenever any of them
    /// changes, its job among them: a stop sends `ActiveState=active` with
    /// the stop's job pending, several times, then `inactive` with it still
    /// pending, then `inactive` alone; a start, `inactive` then `active`
    /// with its job pending, then `active` alone (measured on systemd 252).
    /// Taken as news, the stop's `active` would be a desktop starting while
    /// it ends. So only a state with no job pending is news: `active`, or
    /// `deactivating`, `inactive` and `failed` for a target that stopped;
    /// once until the state changes, and again when a job ends (a restart,
    /// or a stop that a start replaced, ends where it began, yet it is a
    /// new start).
    struct TargetReading {
        private var last: Bool?
        private var jobPending = false

        /// True when the target has just become active (or started again),
        /// false when it has just stopped, nil when `properties` say nothing new.
        mutating func news(in properties: [String: DBusValue]) -> Bool? {
            guard (properties["Job"]?.structureValue?.first?.uint64Value ?? 0) == 0 else {
                jobPending = true
                return nil
            }
            let state: Bool
            switch properties["ActiveState"]?.stringValue {
            case "active": state = true
            case "deactivating", "inactive", "failed": state = false
            default: return nil
            }
            guard state != last || jobPending else { return nil }
            last = state
            jobPending = false
            return state
        }
    }
}
