/// A tmux version, as `tmux -V` prints it (`tmux 3.3a`, `tmux next-3.4`,
/// `tmux 3.2-rc2`); builds named by no number (`tmux master`,
/// `tmux openbsd-7.4`) count as newer than any release.
public struct TmuxVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The major number.
    public var major: Int
    /// The minor number.
    public var minor: Int
    /// The version as tmux wrote it, without `tmux `.
    public var description: String

    /// A version from its numbers.
    public init(major: Int, minor: Int, description: String? = nil) {
        self.major = major
        self.minor = minor
        self.description = description ?? "\(major).\(minor)"
    }

    /// The version `tmux -V` printed; nil when it names none.
    public init?(parsing output: String) {
        let line = output.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard line.hasPrefix("tmux ") else { return nil }
        let name = String(line.dropFirst(5))
        description = name
        if name.hasPrefix("openbsd-") || name == "master" {
            major = Int.max
            minor = 0
            return
        }
        // The first "X.Y" in the name.
        let characters = Array(name)
        guard let start = characters.firstIndex(where: \.isNumber) else { return nil }
        let majorDigits = characters[start...].prefix(while: \.isNumber)
        let afterMajor = start + majorDigits.count
        guard afterMajor < characters.count, characters[afterMajor] == ".", let major = Int(String(majorDigits)) else { return nil }
        let minorDigits = characters[(afterMajor + 1)...].prefix(while: \.isNumber)
        guard let minor = Int(String(minorDigits)) else { return nil }
        self.major = major
        self.minor = minor
    }

    /// Ordered by major, then minor number.
    public static func < (lhs: TmuxVersion, rhs: TmuxVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// Equal numbers (the letter of `3.3a` aside).
    public static func == (lhs: TmuxVersion, rhs: TmuxVersion) -> Bool {
        (lhs.major, lhs.minor) == (rhs.major, rhs.minor)
    }

    /// Hashes the numbers.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
    }
}
