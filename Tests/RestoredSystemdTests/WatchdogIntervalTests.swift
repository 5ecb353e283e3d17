// watchdogInterval: WATCHDOG_USEC and WATCHDOG_PID as sd_watchdog_enabled(3) reads them.

import RestoredSystemd
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("SystemdNotifier.watchdogInterval")
struct WatchdogIntervalTests {
    @Test("half of WATCHDOG_USEC, with or without a WATCHDOG_PID that is ours")
    func enabled() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000"]).watchdogInterval == .seconds(15))
        #expect(
            SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"])
                .watchdogInterval == .seconds(15)
        )
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "1"]).watchdogInterval == .nanoseconds(500))
    }

    @Test("nil when WATCHDOG_PID names another process or is not a pid")
    func otherProcess() {
        for pid in ["\(getpid() + 1)", "1", "0", "-5", "abc", "", " \(getpid())"] {
            #expect(
                SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": pid]).watchdogInterval
                    == nil,
                "WATCHDOG_PID=\(pid)"
            )
        }
    }

    @Test("nil when WATCHDOG_USEC is unset, zero, infinity or not a number")
    func invalid() {
        #expect(SystemdNotifier(environment: [:]).watchdogInterval == nil)
        for usec in ["", "0", "-30000000", "30s", "3e7", " 30000000", "18446744073709551615", "99999999999999999999"] {
            #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": usec]).watchdogInterval == nil, "WATCHDOG_USEC=\(usec)")
        }
    }
}
