import Dispatch
import Foundation
import Logging
import SecretKeychain

// Live sync: following the group's item while the app runs, and adopting what other apps write there.
extension Auth {
    /// Starts following the user item of `group` when live sync applies to it (a shared group,
    /// ``AuthConfiguration/liveSync`` on); `nil` otherwise or when the store cannot be followed.
    func followSharedUser(in group: AccessGroup?) -> KeychainObservation? {
        guard configuration.liveSync, let group else { return nil }
        do {
            let observation = try store.refreshOnChanges(to: StoredUserKeys.user(options, in: group), on: worker) { [weak self] in
                self?.adoptStoredUser(of: group)
            }
            observation.whenEnded { [logger] reason in
                logger.warning(
                    "Live sync stopped: the keychain's changes can no longer be followed; other apps' changes are seen at the next launch",
                    metadata: ["group": "\(group)", "error": "\(reason)"])
            }
            return observation
        } catch {
            logger.warning(
                "Live sync is off: the keychain's changes cannot be followed; other apps' changes are seen at the next launch",
                metadata: ["group": "\(group)", "error": "\(error)"])
            return nil
        }
    }

    /// Starts following `group` on the worker queue, after start-up's read, so that `configure` returns as soon as
    /// the stored user is read: subscribes, then reads the group's item once more, so that a change another app
    /// made between start-up's read and the subscription is adopted too. Nothing happens when the app has moved to
    /// another group, or followed this one, meanwhile.
    func followSharedUserLater(in group: AccessGroup?) {
        guard configuration.liveSync, let group else { return }
        worker.async { [weak self] in
            guard let self else { return }
            let started = transitions.withLock { _ in
                guard state.withLock({ !$0.choiceUnknown && $0.group == group && $0.liveSync == nil }) else { return false }
                let observation = followSharedUser(in: group)
                state.withLock { $0.liveSync = observation }
                return observation != nil
            }
            if started { adoptStoredUser(of: group) }
        }
    }

    /// Makes `observation` the one that follows the group, ending the one before.
    func replaceObservation(with observation: KeychainObservation?) {
        let previous = state.withLock { state in
            defer { state.liveSync = observation }
            return state.liveSync
        }
        previous?.cancel()
    }

    /// Another app (or this one) changed the user item of `group`: reads it and, if it differs
    /// from the current user, makes it current and tells listeners by Firebase's rules. The same
    /// account is updated in place, so `User` references stay current. A deleted item signs the
    /// user out; an item that cannot be read, or holds a user of another tenant, is logged and the
    /// current user kept. A user start-up could not read becomes current once it can be read.
    func adoptStoredUser(of group: AccessGroup) {
        transitions.withLock { _ in adoptStoredUserHoldingTransitions(of: group) }
    }

    /// ``adoptStoredUser(of:)`` for the group or private scope the app is in, with `transitions` held.
    func adoptStoredUserHoldingTransitions(of group: AccessGroup?) {
        guard state.withLock({ !$0.choiceUnknown && $0.group == group }) else { return }
        let stored: StoredUserRecord?
        do throws(AuthError) {
            stored = try Self.readRecord(configuration, in: group)
            if let stored { try checkTenant(of: stored, from: "The user stored in \(Self.describe(group))") }
        } catch {
            logger.warning(
                "The shared user changed but cannot be adopted; keeping the current user",
                metadata: ["scope": "\(Self.describe(group))", "error": "\(error)"])
            return
        }
        state.withLock { state in
            if state.userUnread {
                state.unread = .nothing
                state.startupError = nil
            }
            let current = state.currentUser
            switch (current, stored) {
            case (nil, nil):
                return
            case (let current?, let stored?) where current.uid == stored.uid:
                // Compared as stored: the record in memory has finer dates than the stored one.
                guard current.storedRecord.encoded() != stored.encoded() else { return }
                current.record.withLock { $0 = stored }
            default:
                state.currentUser = stored.map { User(record: $0, auth: self) }
            }
            logger.debug("Adopted a change of the shared user", metadata: ["scope": "\(Self.describe(group))"])
            publish(&state)
        }
    }
}
