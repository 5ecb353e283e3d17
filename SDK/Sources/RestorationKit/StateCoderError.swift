/// Why a ``StateCoder`` call failed.
public enum StateCoderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key starts with the reserved prefix `restored.` (R5).
    case reservedKey(String)
    /// The object's or app's byte budget is exhausted (R13).
    case budgetExceeded(key: String)
    /// The stored value has another type than the one asked for.
    case typeMismatch(key: String, expected: String, found: String)
    /// A referenced object has no restoration identifier or is unknown.
    case unknownObject(key: String)
    /// The value cannot be stored (for example a string that is not UTF-8).
    case invalidValue(key: String, reason: String)
    /// The call is not allowed now (for example encoding while restoring).
    case wrongPhase(String)
    /// The host refused the call with a status code.
    case hostFailure(key: String, status: Int32)
    /// The host passed an object handle this instance did not give out in
    /// the current walk, or no coder where one was due.
    case invalidHostArgument(String)

    /// One line: what is wrong and what to do.
    public var description: String {
        switch self {
        case .reservedKey(let key):
            "key \"\(key)\" uses the reserved prefix \"restored.\"; choose another key"
        case .budgetExceeded(let key):
            "encoding \"\(key)\" exceeds the byte budget; encode references to data, not the data (R14)"
        case .typeMismatch(let key, let expected, let found):
            "key \"\(key)\" holds a \(found), not a \(expected)"
        case .unknownObject(let key):
            "the object referenced under \"\(key)\" has no restoration identifier; give it one"
        case .invalidValue(let key, let reason):
            "cannot store \"\(key)\": \(reason)"
        case .wrongPhase(let what):
            "\(what) is not allowed at this point of the walk"
        case .hostFailure(let key, let status):
            "the host refused \"\(key)\" (status \(status))"
        case .invalidHostArgument(let what):
            "the host passed \(what) that this plugin instance did not give out in this walk; the host is at fault"
        }
    }
}
