public import UnitLaunching
public import UnixSocket

/// Why ``AppLauncher`` could not start an app: one line each, saying what
/// to do where there is something to do.
public typealias AppLaunchError = LaunchError

/// Why a ``SocketRequestClient`` call failed: nothing listens, the peer
/// closed, the deadline passed (``UnixSocketError/timedOut``), a line too long.
public typealias SocketError = UnixSocketError
