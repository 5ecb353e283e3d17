/// A type that recreates objects at restoration (R8 step 1).
///
/// Register restoration classes in ``RestorationPlugin/restorationClasses``;
/// the archive names them by ``restorationClassName``.
public protocol RestorationClass {
    /// The name recorded in the archive.
    static var restorationClassName: String { get }

    /// Returns a new object for `path`, minimally initialised, or nil to
    /// restore neither it nor its subtree. Its state is decoded later (R9).
    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)?
}

extension RestorationClass {
    /// The Swift type name.
    public static var restorationClassName: String { String(reflecting: Self.self) }
}
