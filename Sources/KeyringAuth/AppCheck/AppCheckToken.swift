import Foundation

/// An App Check token, as Firebase's `AppCheckToken`: the string requests carry in `X-Firebase-AppCheck`, and when it
/// expires.
public final class AppCheckToken: Sendable, CustomStringConvertible {
    /// The token: a JWT that Firebase's services verify. Never logged by this package.
    public let token: String
    /// When the token expires.
    public let expirationDate: Date
    /// When the token was received: its refresh is scheduled from here.
    let receivedAtDate: Date

    /// A token a custom provider obtained, received now.
    public convenience init(token: String, expirationDate: Date) {
        self.init(token: token, expirationDate: expirationDate, receivedAtDate: Date())
    }

    init(token: String, expirationDate: Date, receivedAtDate: Date) {
        self.token = token
        self.expirationDate = expirationDate
        self.receivedAtDate = receivedAtDate
    }

    /// The token's expiry only: its string stays out of logs and prints.
    public var description: String { "AppCheckToken(expirationDate: \(expirationDate))" }

    /// The longest token sent: Firebase's are about 800 bytes.
    package static let maximumLength = 8192

    /// Whether the string can go in a header as it is: 1 to ``maximumLength`` visible ASCII characters, so that no
    /// token a provider or the keyring gave can split a request's headers.
    var isSendable: Bool { Self.isSendable(token) }

    /// Whether `token` can go in a header as it is: 1 to ``maximumLength`` visible ASCII characters.
    package static func isSendable(_ token: String) -> Bool {
        isVisibleASCII(token, upTo: maximumLength)
    }

    /// Whether `value` is 1 to `limit` visible ASCII characters: a header value no one can split.
    static func isVisibleASCII(_ value: String, upTo limit: Int) -> Bool {
        let scalars = value.unicodeScalars
        return !scalars.isEmpty && scalars.count <= limit && scalars.allSatisfy { (0x21...0x7E).contains($0.value) }
    }
}
