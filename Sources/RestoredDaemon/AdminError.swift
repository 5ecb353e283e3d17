import RestoredArchive

/// Why the daemon refused an admin request; the admin API names each
/// `org.restored1.Error.*`.
enum AdminError: Error {
    /// Text that is not an app id.
    case invalidAppID(AppIDError)
    /// No plugin for the app is loaded.
    case unknownApp(AppID)
    /// The app has no archive.
    case noArchive(AppID)
    /// The app keeps no last complete archive beside partial ones.
    case noLastComplete(AppID)
    /// The app is busy; the text says with what and what to do.
    case busy(AppID, String)
    /// The archive store failed.
    case failed(ArchiveStoreError)

    /// The error's name after `org.restored1.Error.`.
    var name: String {
        switch self {
        case .invalidAppID: "InvalidAppId"
        case .unknownApp: "UnknownApp"
        case .noArchive, .noLastComplete: "NoArchive"
        case .busy: "Busy"
        case .failed: "Failed"
        }
    }

    /// One line saying what is wrong.
    var message: String {
        switch self {
        case .invalidAppID(let error): error.description
        case .unknownApp(let appID): "no plugin for \(appID) is loaded"
        case .noArchive(let appID): "there is no archive for \(appID)"
        case .noLastComplete(let appID): "\(appID) keeps no last complete archive (one is kept only while its newest saves are partial); restored-ctl restore \(appID) reads its newest archive"
        case .busy(let appID, let what): "\(appID) \(what)"
        case .failed(let error): error.description
        }
    }
}
