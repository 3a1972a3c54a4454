import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where Identity Toolkit requests go: Google's production hosts, or a local emulator that serves
/// the same paths over plain HTTP (`http://HOST:PORT/identitytoolkit.googleapis.com/v1/…`).
package struct IdentityToolkitEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The environment variable Firebase's server SDKs read to use the Auth emulator: `host:port`.
    package static let emulatorHostVariable = "FIREBASE_AUTH_EMULATOR_HOST"

    /// The base of the `accounts:*` methods, ending in `/v1/`.
    package let identityToolkitBase: URL
    /// The base of the token endpoint, ending in `/v1/`.
    package let secureTokenBase: URL
    /// `host:port` when this is an emulator.
    package let emulatorHost: String?

    /// Google's production service.
    package static let production = IdentityToolkitEndpoint(
        identityToolkitBase: URL(string: "https://identitytoolkit.googleapis.com/v1/")!,
        secureTokenBase: URL(string: "https://securetoken.googleapis.com/v1/")!,
        emulatorHost: nil)

    private init(identityToolkitBase: URL, secureTokenBase: URL, emulatorHost: String?) {
        self.identityToolkitBase = identityToolkitBase
        self.secureTokenBase = secureTokenBase
        self.emulatorHost = emulatorHost
    }

    /// An emulator at `host:port`, as Firebase's `useEmulator(withHost:port:)` takes them. An IPv6
    /// address may be bare or bracketed (`::1` or `[::1]`).
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` if the host or port is not usable.
    package static func emulator(host: String, port: Int) throws(AuthError) -> IdentityToolkitEndpoint {
        let hostPart = try urlHost(host, port: port)
        let example = hostPart.hasPrefix("[") ? "[::1]:9099" : "127.0.0.1:9099"
        guard (1...65535).contains(port) else {
            throw AuthError(
                .invalidConfiguration,
                "The emulator address \(hostPart):\(port) does not have a port from 1 to 65535; use for example \(example).")
        }
        let root = "http://\(hostPart):\(port)/"
        guard let identity = URL(string: root + "identitytoolkit.googleapis.com/v1/"),
            let secure = URL(string: root + "securetoken.googleapis.com/v1/")
        else {
            throw AuthError(.invalidConfiguration, "The emulator address \(hostPart):\(port) does not make a valid URL.")
        }
        return IdentityToolkitEndpoint(identityToolkitBase: identity, secureTokenBase: secure, emulatorHost: "\(hostPart):\(port)")
    }

    /// `host` as a URL writes it: an IPv6 address in brackets, a name or IPv4 address as it is.
    private static func urlHost(_ host: String, port: Int) throws(AuthError) -> String {
        let opens = host.hasPrefix("["), closes = host.hasSuffix("]")
        guard opens == closes else {
            throw AuthError(
                .invalidConfiguration,
                "The emulator host '\(host)' has an unmatched bracket; write an IPv6 address as ::1 or [::1] "
                    + "(in \(emulatorHostVariable): [::1]:9099).")
        }
        let bare = opens ? String(host.dropFirst().dropLast()) : host
        if isIPv6Address(bare) { return "[\(bare)]" }
        if opens {
            throw AuthError(
                .invalidConfiguration,
                "The emulator host '\(host)' is not an IPv6 address, the only kind written in brackets; "
                    + "use \(bare):\(port) without them, or an IPv6 address as in [::1]:9099.")
        }
        if bare.contains(":") {
            throw AuthError(
                .invalidConfiguration, "The emulator host '\(host)' is not an IPv6 address; write one as ::1, or [::1]:9099 with its port.")
        }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-"))
        guard !bare.isEmpty, bare.unicodeScalars.allSatisfy(allowed.contains) else {
            throw AuthError(
                .invalidConfiguration,
                "The emulator address \(host):\(port) is not a host name or IP address with a port from 1 to 65535; "
                    + "use for example 127.0.0.1:9099.")
        }
        return bare
    }

    private static func isIPv6Address(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// An emulator named the way `emulatorHostVariable` names it: `host:port` or `[ipv6]:port`.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` naming the expected form; an
    ///   IPv6 address without brackets (`::1:9099`) is refused as ambiguous.
    package static func emulator(hostAndPort value: String) throws(AuthError) -> IdentityToolkitEndpoint {
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else {
                throw AuthError(
                    .invalidConfiguration, "The emulator address '\(value)' opens a bracket it does not close; use for example [::1]:9099.")
            }
            let rest = value[value.index(after: close)...]
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()) else {
                throw AuthError(
                    .invalidConfiguration, "The emulator address '\(value)' is not [IPv6 address]:port; use for example [::1]:9099.")
            }
            return try emulator(host: String(value[...close]), port: port)
        }
        guard !value.contains("/") else {
            throw AuthError(
                .invalidConfiguration,
                "The emulator address '\(value)' is not host:port (no scheme or path); use for example 127.0.0.1:9099.")
        }
        guard value.filter({ $0 == ":" }).count <= 1 else {
            throw AuthError(
                .invalidConfiguration,
                "The emulator address '\(value)' is ambiguous: put an IPv6 address in brackets before the port, as in [::1]:9099.")
        }
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]) else {
            throw AuthError(
                .invalidConfiguration,
                "The emulator address '\(value)' is not host:port; use for example 127.0.0.1:9099.")
        }
        return try emulator(host: String(value[..<colon]), port: port)
    }

    /// The emulator named by `emulatorHostVariable` in `environment`, or production when it is unset or empty.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidConfiguration`` when the variable is malformed.
    package static func fromEnvironment(
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

    /// The URL of a multi-factor method of Identity Toolkit's v2 API (`v2/accounts/mfaSignIn:finalize`, …).
    func multiFactorURL(_ method: String, apiKey: String) -> URL {
        withKey(identityToolkitBase.deletingLastPathComponent().appendingPathComponent("v2/accounts/\(method)"), apiKey: apiKey)
    }

    /// The URL of a v1 method outside `accounts:` (`recaptchaParams`).
    func identityToolkitURL(_ method: String, apiKey: String) -> URL {
        withKey(identityToolkitBase.appendingPathComponent(method), apiKey: apiKey)
    }

    /// The URL of a v2 `GET` (`recaptchaConfig`) with its query's other parameters.
    func identityToolkitV2URL(_ method: String, apiKey: String, query: [String: String]) -> URL {
        let url = withKey(identityToolkitBase.deletingLastPathComponent().appendingPathComponent("v2/\(method)"), apiKey: apiKey)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        for (name, value) in query.sorted(by: { $0.key < $1.key }) {
            components.percentEncodedQuery! += "&\(name)=" + (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")
        }
        return components.url!
    }

    /// The URL of Identity Toolkit's v2 password policy, of the project or of `tenantID`.
    func passwordPolicyURL(apiKey: String, tenantID: String?) -> URL {
        identityToolkitV2URL("passwordPolicy", apiKey: apiKey, query: tenantID.map { ["tenantId": $0] } ?? [:])
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

    package var description: String { emulatorHost.map { "the Auth emulator at \($0)" } ?? "Firebase (identitytoolkit.googleapis.com)" }
}
