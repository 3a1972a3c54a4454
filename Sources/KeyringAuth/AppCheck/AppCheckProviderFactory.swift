/// Makes each Firebase app's ``AppCheckProvider``, as Firebase's `AppCheckProviderFactory`; given to
/// ``AppCheck/setAppCheckProviderFactory(_:)`` before `FirebaseApp.configure()`.
public protocol AppCheckProviderFactory: Sendable {
    /// The provider of `app`'s tokens, or `nil` when the app cannot have one (its options lack what it needs).
    func createProvider(with app: FirebaseApp) -> (any AppCheckProvider)?
}
