import Dispatch
import Foundation
import Logging
import SecretKeychain
import SystemSupport

// Keychain transitions: one at a time under `transitions`, off the cooperative pool; and finishing a
// start-up that could not read the choice or the user.
extension Auth {
    static func validated(_ accessGroup: String?) throws(AuthError) -> AccessGroup? {
        guard let accessGroup else { return nil }
        return try AuthError.catchingKeychain { () throws(KeychainError) in try AccessGroup(accessGroup) }
    }

    func transition<Result>(_ body: () throws(AuthError) -> Result) throws(AuthError) -> Result {
        try transitions.withLock { _ throws(AuthError) in try body() }
    }

    /// Runs a transition on ``worker`` (it blocks on the keychain), never on the cooperative pool.
    func transitionOffPool<Result: Sendable>(
        _ body: @escaping @Sendable () throws(AuthError) -> Result
    ) async throws(AuthError) -> Result {
        try await worker.run { () throws(AuthError) in try self.transition(body) }
    }

    // MARK: Start-up completed late

    /// Reads again what start-up could not: the group choice, then the group's user. No-op once loaded.
    ///
    /// - Throws: ``AuthError`` when either still cannot be read; what could be read is kept.
    func completeStartupHoldingTransitions() throws(AuthError) {
        let (choiceUnknown, userUnread, savedGroup) = state.withLock { ($0.choiceUnknown, $0.userUnread, $0.group) }
        guard choiceUnknown || userUnread else { return }
        let group = choiceUnknown ? try loadGroupChoice() : savedGroup
        if choiceUnknown {
            state.withLock { state in
                state.group = group
                state.unread = .user
            }
            replaceObservation(with: followSharedUser(in: group))
        }
        let user = try readAdoptableUser(in: group)
        state.withLock { state in
            state.unread = .nothing
            state.startupError = nil
            state.currentUser = user
            publish(&state)
        }
        logger.info("Loaded the stored user that could not be read at start-up", metadata: ["group": "\(Self.describe(group))"])
    }

    /// Before a write: the group choice must be known (it says where to write); the group's user
    /// is read again if it could not be, but a write may replace an unreadable item.
    func completeStartupForWriting() throws(AuthError) {
        do throws(AuthError) {
            try completeStartupHoldingTransitions()
        } catch where state.withLock({ $0.choiceUnknown }) {
            throw error
        } catch {
            // The group is known: the write goes there, and replaces what could not be read.
        }
    }

    func completeStartupOffPool() async throws(AuthError) {
        guard state.withLock({ $0.choiceUnknown || $0.userUnread }) else { return }
        try await transitionOffPool { () throws(AuthError) in try self.completeStartupForWriting() }
    }
}
