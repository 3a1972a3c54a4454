import KeyringAuth
import Testing

/// The ``AuthError`` `body` throws, `nil` when it succeeds; another error is recorded as an issue.
func authFailure(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> AuthError? {
    do {
        try await body()
        return nil
    } catch let error as AuthError {
        return error
    } catch {
        Issue.record("not an AuthError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
