#if canImport(Glibc)
import Glibc
#endif

/// A list of strings as C's `argv` and `envp` want them: a NULL-terminated
/// array of NUL-terminated copies, alive for the duration of one call.
public enum CStringArray {
    /// Runs `body` with `strings` as a NULL-terminated C array.
    public static func with<Result, Failure: Error>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return try pointers.withUnsafeBufferPointer { (buffer) throws(Failure) -> Result in try body(buffer.baseAddress!) }
    }

    /// `environment` as `NAME=value` strings, sorted by name so that a
    /// child's environment does not depend on a dictionary's order.
    public static func variables(_ environment: [String: String]) -> [String] {
        environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }
}
