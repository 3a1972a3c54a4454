import Foundation

// What every browser flow does with its listener: wait for the redirect, and read a provider's refusal from it.
extension LoopbackRedirectListener {
    /// The redirect that carries `state`, within `timeout`; the listener stops listening once it came.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/webContextCancelled`` when the time passed or the task was cancelled,
    ///   ``AuthErrorCode/webInternalError`` when the listener failed.
    func redirect(state: String, within timeout: Duration, of providerID: String) async throws(AuthError) -> Callback {
        defer { close() }  // a second request is refused from now on
        switch await nextCallback(state: state, until: .now + timeout) {
        case .success(let received): return received
        case .failure(.timedOut):
            throw AuthError(
                .webContextCancelled, "Nobody finished signing in to \(providerID) in the browser within \(timeout); start the sign-in again.")
        case .failure(.cancelled):
            throw AuthError(.webContextCancelled, "The \(providerID) sign-in was cancelled before the browser came back.")
        case .failure(.failed(let reason)):
            throw AuthError(.webInternalError, "The desktop sign-in stopped listening for the browser: \(reason).")
        }
    }

    /// Throws the error a redirect carries (`error`, `error_description`, RFC 6749 §4.1.2.1), if it carries one.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/webContextCancelled`` when the person declined,
    ///   ``AuthErrorCode/invalidClientID`` when the provider refused the client,
    ///   ``AuthErrorCode/webSignInUserInteractionFailure`` for any other error.
    static func checkRefusal(in callback: Callback, of providerID: String) throws(AuthError) {
        guard callback.parameters.keys.contains("error") else { return }
        let error = DesktopOAuthFlow.printable(callback.value("error") ?? "", limit: 64)
        let detail = callback.value("error_description").map { " (\(DesktopOAuthFlow.printable($0, limit: 200)))" } ?? ""
        switch error {
        case "access_denied":
            throw AuthError(.webContextCancelled, "The sign-in to \(providerID) was declined in the browser\(detail).")
        case "unauthorized_client", "invalid_client":
            throw AuthError(.invalidClientID, "\(providerID) refused the OAuth client: \(error)\(detail); check the client ID and its type.")
        default:
            throw AuthError(.webSignInUserInteractionFailure, "\(providerID) answered \(error)\(detail); start the sign-in again.")
        }
    }
}
