import Logging
import SecretKeychain
import Synchronization

// Sandboxes: an access group used where it cannot be shared is logged once.
extension Auth {
    /// The groups already checked in this process.
    private static let sandboxChecks = Mutex<Set<String>>([])

    /// Logs a warning when `group` is used with a `SecretServiceStore` chosen explicitly inside a Flatpak or Snap
    /// sandbox from which the session's Secret Service cannot be reached: that store then has no backend at all, so
    /// the group is shared with no other app (the default store reaches it through the broker).
    /// Checked once per group and process, at its first use. Costs nothing outside a sandbox or
    /// with another store; inside one, one bounded bus call.
    func warnIfGroupCannotBeShared(_ group: AccessGroup?, sandbox: Sandbox = .current) {
        guard let group, sandbox.isSandboxed, store is SecretServiceStore else { return }
        guard Self.sandboxChecks.withLock({ $0.insert(group.rawValue).inserted }) else { return }
        guard let warning = Self.sandboxWarning(for: group, store: store, sandbox: sandbox) else { return }
        logger.warning("\(warning)", metadata: ["accessGroup": "\(group.rawValue)", "sandbox": "\(sandbox)"])
    }

    /// The warning for `group` used with `store` in `sandbox`, or `nil` when the group can be shared
    /// (no sandbox, a store other than the Secret Service, or the Secret Service reachable).
    static func sandboxWarning(
        for group: AccessGroup, store: any KeychainStore, sandbox: Sandbox,
        reachable: (SecretServiceStore) -> Bool = { $0.secretServiceIsReachable() }
    ) -> String? {
        guard sandbox.isSandboxed, let store = store as? SecretServiceStore, !reachable(store) else { return nil }
        return "The access group \(group.rawValue) cannot be shared: this app runs in a \(sandbox) sandbox that does not let it "
            + "reach the Secret Service (org.freedesktop.secrets), so this store can store and share nothing; to share it, use the "
            + "default store (SandboxStore.automatic), and " + (sandbox.sharingAdvice ?? "let the app reach org.freedesktop.secrets") + "."
    }
}
