import Foundation

/// Where Identity Toolkit requests go: Google's production hosts, or a local emulator that serves
/// the same paths over plain HTTP (`http://HOST:PORT/identitytoolkit.googleapis.com/v1/…`).
public struct IdentityToolkitEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The environment variable Firebase's server SDKs read to use the Auth emulator: `host:port`.
    public static let emulatorHostVariable = "FIREBASE_AUTH_EMULATOR_HOST"

    /// The base of the `accounts:*` methods, ending in `/v1/`.
    public let identityToolkitBase: URL
    /// The base of the token endpoint, ending in `/v1/`.
    public let secureTokenBase: URL
    /// `host:port` when this is an emulator.
    public let emulatorHost: String?

    /// Google's production service.
    public static let production = IdentityToolkitEndpoint(
        identityToolkitBase: URL(string: "https://identitytoolkit.googleapis.com/v1/")!,
        secureTokenBase: URL(string: "https://securetoken.googleapis.com/v1/")!,
        emulatorHost: nil)

    private init(identityToolkitBase: URL, secureTokenBase: URL, emulatorHost: String?) {
        self.identityToolkitBase = identityToolkitBase
        self.secureTokenBase = secureTokenBase
        self.emulatorHost = emulatorHost
    }

    /// An emulator at `host:port`, as Firebase's `useEmulator(withHost:port:)` takes them.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` if the host or port is not usable.
    public static func emulator(host: String, port: Int) throws(AuthError) -> IdentityToolkitEndpoint {
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-:"))
        guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy(allowed.contains), (1...65535).contains(port) else {
            throw AuthError(
                .invalidConfiguration,
                "The emulator address \(host):\(port) is not a host name or IP address with a port from 1 to 65535; "
                    + "use for example 127.0.0.1:9099.")
        }
        let hostPart = trimmed.contains(":") ? "[\(trimmed)]" : trimmed
        let root = "http://\(hostPart):\(port)/"
        guard let identity = URL(string: root + "identitytoolkit.googleapis.com/v1/"),
            let secure = URL(string: root + "securetoken.googleapis.com/v1/")
        else {
            throw AuthError(.invalidConfiguration, "The emulator address \(host):\(port) does not make a valid URL.")
        }
        return IdentityToolkitEndpoint(identityToolkitBase: identity, secureTokenBase: secure, emulatorHost: "\(hostPart):\(port)")
    }

    /// An emulator named the way ``emulatorHostVariable`` names it: `host:port` or `[ipv6]:port`.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` naming the expected form.
    public static func emulator(hostAndPort value: String) throws(AuthError) -> IdentityToolkitEndpoint {
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]) else {
            throw AuthError(
                .invalidConfiguration,
                "The emulator address '\(value)' is not host:port; use for example 127.0.0.1:9099.")
        }
        return try emulator(host: String(value[..<colon]), port: port)
    }

    /// The emulator named by ``emulatorHostVariable`` in `environment`, or production when it is unset or empty.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` when the variable is malformed.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AuthError) -> IdentityToolkitEndpoint {
        guard let value = environment[emulatorHostVariable], !value.isEmpty else { return .production }
        do throws(AuthError) {
            return try emulator(hostAndPort: value)
        } catch {
            throw AuthError(.invalidConfiguration, "\(emulatorHostVariable): \(error.message) Or unset the variable to use Firebase.")
        }
    }

    /// The URL of an `accounts:<method>` call.
    func accountsURL(_ method: String, apiKey: String) -> URL {
        withKey(identityToolkitBase.appendingPathComponent("accounts:\(method)"), apiKey: apiKey)
    }

    /// The URL of the token endpoint.
    func tokenURL(apiKey: String) -> URL {
        withKey(secureTokenBase.appendingPathComponent("token"), apiKey: apiKey)
    }

    private func withKey(_ url: URL, apiKey: String) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "key", value: apiKey)]
        // A "+" left as is reads as a space in a query.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    public var description: String { emulatorHost.map { "the Auth emulator at \($0)" } ?? "Firebase (identitytoolkit.googleapis.com)" }
}
