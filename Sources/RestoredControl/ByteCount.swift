/// Sizes for people: `812 B`, `12.1 KiB`, `3.4 MiB`.
public enum ByteCount {
    /// `count` bytes, in the largest unit that keeps it at 1 or more.
    public static func text(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let rounded = (value * 10).rounded() / 10
        return "\(rounded.truncatingRemainder(dividingBy: 1) == 0 ? String(Int(rounded)) : String(rounded)) \(units[unit])"
    }
}
