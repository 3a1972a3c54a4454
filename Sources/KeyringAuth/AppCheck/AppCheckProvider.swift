import Foundation

/// Where an ``AppCheck`` gets its tokens, as Firebase's `AppCheckProvider`: ``AppCheckDebugProvider``, or the app's own
/// (a custom provider, whose backend mints tokens with the Admin SDK's `createToken`). Each call must complete once.
public protocol AppCheckProvider: Sendable {
    /// A new token, or the error that kept the provider from getting one.
    func getToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void)
    /// A token for one use only (replay protection); by default, ``getToken(completion:)``'s.
    func getLimitedUseToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void)
}

extension AppCheckProvider {
    public func getLimitedUseToken(completion: @escaping @Sendable (AppCheckToken?, (any Error)?) -> Void) {
        getToken(completion: completion)
    }
}
