/// Makes ``AppCheckDebugProvider``s, as Firebase's `AppCheckDebugProviderFactory`:
///
/// ```swift
/// AppCheck.setAppCheckProviderFactory(AppCheckDebugProviderFactory())
/// FirebaseApp.configure()
/// ```
public final class AppCheckDebugProviderFactory: AppCheckProviderFactory {
    private let debugToken: String?

    /// A factory whose providers take their secret from the environment (`AppCheckDebugToken`,
    /// `FIRAAppCheckDebugToken` or `APP_CHECK_DEBUG_TOKEN`), else make one (``AppCheckDebugProvider/localDebugToken()``).
    public init() {
        self.debugToken = nil
    }

    /// A factory whose providers exchange `debugToken`, a debug secret registered in the Firebase console, as the C++
    /// SDK's `SetDebugToken`; read it from where secrets are kept (standard input, a keyring), never from arguments.
    public init(debugToken: String) {
        self.debugToken = debugToken.isEmpty ? nil : debugToken
    }

    public func createProvider(with app: FirebaseApp) -> (any AppCheckProvider)? {
        AppCheckDebugProvider(app: app, debugToken: debugToken)
    }
}
