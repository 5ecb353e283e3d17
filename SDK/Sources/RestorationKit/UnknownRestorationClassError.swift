/// An archive names a restoration class the plugin does not register: the
/// object is not restored, and the restore's result says why.
struct UnknownRestorationClassError: Error, CustomStringConvertible {
    /// The class name the archive holds.
    var name: String

    /// One line with what to do.
    var description: String {
        "no restoration class named \(name) is registered; add it to the plugin's restorationClasses"
    }
}
