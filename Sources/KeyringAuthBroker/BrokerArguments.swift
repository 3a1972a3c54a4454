import Foundation
import KeyringAuth
import SecretKeychain
import SystemSupport

/// The arguments every method shares, checked: who the app is to Firebase (`app`, an `a{sv}`) and
/// which scope it means (`group`; `""` for its private scope). Nothing is trusted beyond its type.
struct BrokerArguments: Sendable {
    /// The largest `app` value and the largest of the other strings a call may carry, in bytes.
    static let maximumAppValueSize = 512
    static let maximumEmailSize = 320
    static let maximumPasswordSize = 4096
    static let maximumTokenSize = 64 * 1024

    /// The app's options as the caller gave them (its own app name, not yet scoped to the caller).
    let options: AuthAppOptions
    /// `nil` for the private scope.
    let group: AccessGroup?
    /// The app dictionary as it is sent back in `UserChanged`: the keys the caller gave.
    let appDictionary: [String: GVariants.Value]
    /// The Auth emulator the app's calls go to (`host:port`, on loopback), or `nil` for Firebase.
    let emulatorHost: String?
    /// The language of this call's requests (`X-Firebase-Locale`: the emails it has Firebase send), a BCP 47 tag, or
    /// `nil` for the project's default. The call's own: the scope's `Auth` is shared by apps of other languages.
    let languageCode: String?
    /// The app's App Check token for this call's requests (`X-Firebase-AppCheck`), its own: never kept, never sent with
    /// another app's calls, never in a signal.
    let appCheckToken: String?
    /// A debug secret of App Check (host apps only) that the broker exchanges for the call's token, as the app's
    /// own debug provider would; never logged, never in a signal.
    let appCheckDebugToken: String?
    /// Whether a sign-in of this call is held, not stored, until `CommitSignIn` (`holdSignIn` `"true"`): for an app
    /// whose checks before its Auth's state changes (Firebase's `beforeAuthStateChanged`) may refuse it.
    let holdSignIn: Bool

    private static let requiredKeys = ["apiKey", "appID", "projectID"]
    private static let optionalKeys = ["tenantID", "appName", "emulatorHost", "languageCode", "holdSignIn", "appCheckToken", "appCheckDebugToken"]
    /// The longest App Check token taken: as long as a request sends one.
    static let maximumAppCheckTokenSize = AppCheckToken.maximumLength

    /// Reads `app` (the tuple's child 0, an `a{sv}`) and `group` (child 1, a string).
    init(app: OpaquePointer, group: String) throws(BrokerError) {
        let strings = try GVariants.strings(
            of: app, name: "app", keys: Self.requiredKeys + Self.optionalKeys, limit: Self.maximumAppValueSize,
            limits: ["appCheckToken": Self.maximumAppCheckTokenSize],
            shape: "a dictionary (a{sv}) of apiKey, appID, projectID, and optionally tenantID, appName, emulatorHost, languageCode, holdSignIn, appCheckToken and appCheckDebugToken")
        for key in Self.requiredKeys where (strings[key] ?? "").isEmpty {
            throw BrokerError(.invalidArgument, "app needs \(key), a non-empty string (from the app's Firebase configuration).")
        }
        if let appName = strings["appName"], appName.isEmpty {
            throw BrokerError(.invalidArgument, "app's appName must not be empty; leave it out for the default app.")
        }
        options = AuthAppOptions(
            appName: strings["appName"] ?? AuthAppOptions.defaultAppName, apiKey: strings["apiKey"]!, appID: strings["appID"]!,
            projectID: strings["projectID"]!, tenantID: strings["tenantID"].flatMap { $0.isEmpty ? nil : $0 })
        // The app as signals name it: without its App Check token, which is the caller's alone.
        appDictionary = strings.filter { !["appCheckToken", "appCheckDebugToken"].contains($0.key) }.mapValues { .string($0) }
        appCheckToken = try strings["appCheckToken"].flatMap { $0.isEmpty ? nil : $0 }.map { token throws(BrokerError) in
            guard AppCheckToken.isSendable(token) else {
                throw BrokerError(.invalidArgument, "app's appCheckToken is not an App Check token (a JWT of visible ASCII); pass the token "
                    + "the app's App Check provider gave, or leave it out.")
            }
            return token
        }
        appCheckDebugToken = strings["appCheckDebugToken"].flatMap { $0.isEmpty ? nil : $0 }
        if appCheckToken != nil, appCheckDebugToken != nil {
            throw BrokerError(.invalidArgument, "app has both appCheckToken and appCheckDebugToken; give the app's token, or (a host app) its debug secret.")
        }
        emulatorHost = try strings["emulatorHost"].flatMap { $0.isEmpty ? nil : $0 }.map { host throws(BrokerError) in try Self.loopbackEmulator(host) }
        guard [nil, "", "true"].contains(strings["holdSignIn"]) else {
            throw BrokerError(.invalidArgument, "app's holdSignIn takes \"true\" (hold the call's sign-in until CommitSignIn), or leave it out.")
        }
        holdSignIn = strings["holdSignIn"] == "true"
        languageCode = try strings["languageCode"].flatMap { $0.isEmpty ? nil : $0 }.map { code throws(BrokerError) in try Self.languageTag(code) }
        if group.isEmpty {
            self.group = nil
        } else {
            do throws(KeychainError) {
                self.group = try AccessGroup(group)
            } catch {
                throw BrokerError(.invalidArgument, "\(error.description) Pass an access group such as TEAMID.com.example.shared, or \"\" for the app's private scope.")
            }
        }
    }

    /// `host:port` of an emulator on this machine's loopback (`127.0.0.1:9099`, `[::1]:9099`, `localhost:9099`), as
    /// `FIREBASE_AUTH_EMULATOR_HOST` names it; any other host is refused: the broker reaches no other service in
    /// plain HTTP for an app.
    static func loopbackEmulator(_ value: String) throws(BrokerError) -> String {
        let endpoint: IdentityToolkitEndpoint
        do throws(AuthError) {
            endpoint = try .emulator(hostAndPort: value)
        } catch {
            throw BrokerError(.invalidArgument, "app's emulatorHost: \(error.message)")
        }
        guard let host = endpoint.emulatorHost, let url = URL(string: "http://\(host)"), url.hasLoopbackHost else {
            throw BrokerError(.invalidArgument, "app's emulatorHost \(quoted(value)) is not on this machine's loopback; the broker "
                + "reaches an emulator at 127.0.0.1, [::1] or localhost only, for example 127.0.0.1:9099.")
        }
        return host
    }

    /// `code` when it can be sent as `X-Firebase-Locale`: a BCP 47 tag's letters, digits, `-` and `_`, at most 35.
    static func languageTag(_ code: String) throws(BrokerError) -> String {
        let allowed = code.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
        guard allowed, code.count <= 35 else {
            throw BrokerError(.invalidArgument, "app's languageCode \(quoted(code)) is not a language tag; give one such as fr or pt-BR.")
        }
        return code
    }

    /// Refuses a string longer than `limit` bytes, or with a control character (a line break would forge a line of the
    /// broker's log), naming it.
    static func checkString(_ string: String, of name: String, limit: Int) throws(BrokerError) {
        guard string.utf8.count <= limit else {
            throw BrokerError(.invalidArgument, "\(name) is \(string.utf8.count) bytes long; the broker takes at most \(limit).")
        }
        if let control = string.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(control.value, radix: 16, uppercase: true)
            throw BrokerError(.invalidArgument, "\(name) contains the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code); the broker takes none.")
        }
    }

    /// A string from a caller, quoted with everything unprintable escaped, cut to a readable length.
    static func quoted(_ string: String) -> String {
        let cut = string.count > 80 ? String(string.prefix(80)) + "…" : string
        return "\"\(cut.escapedForTerminal)\""
    }
}
