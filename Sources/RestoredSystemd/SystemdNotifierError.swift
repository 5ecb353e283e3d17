// Why a message to the service manager could not be sent.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why ``SystemdNotifier`` could not send a message; `description` is one
/// line saying what failed and what to do.
public enum SystemdNotifierError: Error, Equatable, CustomStringConvertible {
    /// `NOTIFY_SOCKET` is neither an absolute path nor an abstract name starting with `@`.
    case unsupportedAddress(String)
    /// `NOTIFY_SOCKET` is longer than a UNIX socket address can hold.
    case addressTooLong(String)
    /// A field name is empty or has characters other than `A`-`Z`, `0`-`9` and `_`.
    case invalidFieldName(String)
    /// socket(2) failed with this errno.
    case socketFailed(errno: Int32)
    /// sendto(2) to the socket failed with this errno.
    case sendFailed(address: String, errno: Int32)

    /// One line: what failed and what to do about it.
    public var description: String {
        switch self {
        case .unsupportedAddress(let address):
            return "cannot notify systemd: NOTIFY_SOCKET=\(address) is neither an absolute path "
                + "nor an abstract socket name starting with '@'; unset it or let systemd set it"
        case .addressTooLong(let address):
            return "cannot notify systemd: NOTIFY_SOCKET=\(address) is longer than a UNIX socket "
                + "address allows (107 bytes); use a shorter path"
        case .invalidFieldName(let name):
            return "cannot notify systemd: field name '\(name)' is not made of A-Z, 0-9 and '_'; "
                + "this is a bug in restored, please report it"
        case .socketFailed(let code):
            return "cannot notify systemd: socket(AF_UNIX, SOCK_DGRAM) failed: \(Self.describe(code)); "
                + "check the process's file descriptor limit (ulimit -n)"
        case .sendFailed(let address, let code):
            return "cannot notify systemd at \(address): \(Self.describe(code)); "
                + "check that NOTIFY_SOCKET names the socket of the service manager that started restored"
        }
    }

    /// `strerror` text and the symbolic name, such as "Connection refused (ECONNREFUSED)".
    static func describe(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        let names: [Int32: String] = [
            ENOENT: "ENOENT", ECONNREFUSED: "ECONNREFUSED", EACCES: "EACCES", EPERM: "EPERM",
            EAGAIN: "EAGAIN", ENOBUFS: "ENOBUFS", EMSGSIZE: "EMSGSIZE", ENOTSOCK: "ENOTSOCK",
            EPROTOTYPE: "EPROTOTYPE", EMFILE: "EMFILE", ENFILE: "ENFILE", ENOMEM: "ENOMEM",
            ENOTDIR: "ENOTDIR", EINVAL: "EINVAL",
        ]
        if let name = names[code] { return "\(text) (\(name))" }
        return "\(text) (errno \(code))"
    }
}
