import Foundation
import SecretKeychain
import Synchronization

/// Where apps remember their access group across launches: outside the keychain, as Firebase
/// keeps it in `UserDefaults`, so that the choice is known even while the keychain is locked.
///
/// The file-backed form keeps one small JSON file per app ID, named after Firebase's defaults
/// domain (`com.google.Firebase.Auth.firebase_auth_<appID>.json`) and holding Firebase's key
/// (`{"firebase_auth_stored_user_access_group": "TEAMID.com.example.group1"}`; `{}` for the
/// private scope). It holds no secret. Files are written atomically (a temporary file, then a
/// rename) with mode 0600.
public final class AccessGroupChoices: Sendable {
    /// Firebase's key for the choice.
    static let choiceKey = "firebase_auth_stored_user_access_group"
    /// The largest choice file read; a larger one is reported as unreadable, not read.
    static let maximumFileSize = 4096

    /// The directory of the files, or `nil` when choices are kept in ``memory``.
    private let directory: URL?
    private let memory = Mutex<[String: Data]>([:])

    private init(directory: URL?) { self.directory = directory }

    /// One file per app ID in `directory` (created with mode 0700 when first needed).
    public static func stateDirectory(_ directory: URL) -> AccessGroupChoices {
        AccessGroupChoices(directory: directory)
    }

    /// Files in `$XDG_STATE_HOME/keyring-auth`, or `~/.local/state/keyring-auth` when
    /// `XDG_STATE_HOME` is unset or not an absolute path (the XDG base-directory rule).
    public static func standard() -> AccessGroupChoices {
        stateDirectory(standardDirectory(environment: ProcessInfo.processInfo.environment))
    }

    /// Kept in this process only: for tests and for apps that opt into `InMemoryStore`.
    /// Configurations that share the instance share their choices (a "relaunch" in a test).
    public static func inMemory() -> AccessGroupChoices {
        AccessGroupChoices(directory: nil)
    }

    /// Kept in this process only, holding `group` as the choice of `appID` (`nil`: the private scope): an
    /// `Auth` made with it starts in that scope, and nothing it does reaches the app's saved choice.
    package static func pinned(to group: AccessGroup?, forAppID appID: String) -> AccessGroupChoices {
        let choices = inMemory()
        // Memory cannot fail to be written.
        try? choices.save(group, forAppID: appID)
        return choices
    }

    static func standardDirectory(environment: [String: String]) -> URL {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("keyring-auth", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/keyring-auth", isDirectory: true)
    }

    /// The file holding the choice of `appID`, or `nil` when choices are kept in memory.
    public func fileURL(forAppID appID: String) -> URL? {
        guard let directory else { return nil }
        return directory.appendingPathComponent("com.google.Firebase.Auth.firebase_auth_\(Self.fileSafe(appID)).json")
    }

    /// An app ID as a file name: characters outside `A–Z a–z 0–9 : . _ -` are percent-encoded,
    /// so that no app ID names another directory.
    static func fileSafe(_ appID: String) -> String {
        var name = ""
        for byte in appID.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "-"):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                name += String(format: "%%%02X", byte)
            }
        }
        return name
    }

    // MARK: Reading and writing

    /// What is saved for an app: nothing yet, or a choice (`nil`: the private scope).
    enum Saved: Equatable {
        case nothing
        case choice(AccessGroup?)
    }

    /// The saved choice of `appID`.
    ///
    /// - Throws: ``AuthErrorCode/accessGroupChoiceError`` when the file cannot be read or does not
    ///   hold a valid choice; it is left as it is.
    func saved(forAppID appID: String) throws(AuthError) -> Saved {
        guard let contents = try contents(forAppID: appID) else { return .nothing }
        return .choice(try decode(contents, appID: appID))
    }

    /// Saves `group` as the choice of `appID` (`nil`: the private scope).
    ///
    /// - Throws: ``AuthErrorCode/accessGroupChoiceError`` when it cannot be written; the file is
    ///   then as it was.
    func save(_ group: AccessGroup?, forAppID appID: String) throws(AuthError) {
        let object: [String: String] = group.map { [Self.choiceKey: $0.rawValue] } ?? [:]
        // A dictionary of strings always serializes.
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try restore(data, forAppID: appID)
    }

    /// The file's bytes as they are (`nil`: no file), to put back with ``restore(_:forAppID:)``.
    func contents(forAppID appID: String) throws(AuthError) -> Data? {
        guard let url = fileURL(forAppID: appID) else { return memory.withLock { $0[appID] } }
        return try Self.read(url, limit: Self.maximumFileSize, appID: appID)
    }

    /// Puts `contents` back as the file of `appID` (`nil`: removes it), atomically.
    func restore(_ contents: Data?, forAppID appID: String) throws(AuthError) {
        guard let directory, let url = fileURL(forAppID: appID) else {
            memory.withLock { $0[appID] = contents }
            return
        }
        do {
            if let contents {
                try AtomicFile.replace(url, with: contents, creatingDirectory: directory)
            } else {
                try AtomicFile.remove(url)
            }
        } catch {
            throw AuthError(
                .accessGroupChoiceError,
                "Could not save the access-group choice of app \(appID) in \(url.path): \(error). Check that "
                    + "\(directory.path) is a writable directory (set XDG_STATE_HOME to choose another); "
                    + "nothing was changed.")
        }
    }

    private func decode(_ data: Data, appID: String) throws(AuthError) -> AccessGroup? {
        let location = fileURL(forAppID: appID)?.path ?? "memory"
        func unreadable(_ reason: String) -> AuthError {
            AuthError(
                .accessGroupChoiceError,
                "The saved access-group choice of app \(appID) (\(location)) is not valid: \(reason). It was left as "
                    + "it is; remove the file, or call useUserAccessGroup to replace it.")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw unreadable("it is not a JSON object")
        }
        guard let value = object[Self.choiceKey] else { return nil }
        guard let string = value as? String else { throw unreadable("\(Self.choiceKey) is not a string") }
        do throws(KeychainError) {
            return try AccessGroup(string)
        } catch {
            throw unreadable("\(error)")
        }
    }

    private static func read(_ url: URL, limit: Int, appID: String) throws(AuthError) -> Data? {
        do {
            return try AtomicFile.contents(of: url, limit: limit)
        } catch {
            throw AuthError(
                .accessGroupChoiceError,
                "Could not read the access-group choice of app \(appID) in \(url.path): \(error). It was left as it "
                    + "is; remove the file or fix its permissions.")
        }
    }
}
