/// A known behaviour of a Secret Service provider that differs from the specification or from
/// gnome-keyring, the reference, and that users of this package may notice.
package struct ProviderQuirk: Hashable, Sendable, Identifiable {
    /// A stable identifier, for example `kwallet-session-bug`.
    package var id: String
    /// What happens, and what this package does about it, in one line.
    package var summary: String

    /// What a client that does not retry, as the store does, says when KWallet's session bug
    /// (`kwallet-session-bug`) fails it: for the tests and benchmarks, which run such clients.
    package static let kwalletSessionBugMessages = [
        "Can't find session", "Client public key size is invalid", "invalid or unencryptable secret",
    ]

    /// A quirk.
    ///
    /// - Parameters:
    ///   - id: A stable identifier.
    ///   - summary: One line.
    package init(id: String, summary: String) {
        self.id = id
        self.summary = summary
    }
}

extension Optional where Wrapped == SecretServiceDiagnosis.Provider {
    /// Whether a broken session can return other bytes than stored, with no error: KWallet 5 (KDE bug 514194).
    var garblesSecretsOnBrokenSessions: Bool { self == .kWallet }
}

extension SecretServiceDiagnosis.Provider {
    /// The known quirks of this provider (none known for an unrecognised program).
    package var quirks: [ProviderQuirk] {
        switch self {
        case .gnomeKeyring:
            [
                ProviderQuirk(
                    id: "gnome-keyring-locked-prompt",
                    summary: "a locked collection asks for the password in a desktop prompt when a display is available "
                        + "(the call waits up to the store's unlockTimeout); with no prompter it is refused at once"),
            ]
        case .keePassXC:
            [
                ProviderQuirk(
                    id: "keepassxc-no-default-alias-object",
                    summary: "no /org/freedesktop/secrets/aliases/default object: the default collection is found with ReadAlias"),
                ProviderQuirk(
                    id: "keepassxc-per-database-lock",
                    summary: "each database (collection) locks on its own, with KeePassXC's idle and screen-lock settings"),
                ProviderQuirk(
                    id: "keepassxc-silent-changes-while-saving",
                    summary: "KeePassXC 2.7 announces no change made while it saves the database (its change signals are off "
                        + "during each save, about as long as the database's key derivation): live sync lists and re-reads the "
                        + "followed items every 2 s there, and such a change is saved to disk only with the next one"),
                ProviderQuirk(
                    id: "keepassxc-concurrent-delete-crash",
                    summary: "KeePassXC 2.7.4 can crash (SIGSEGV) when several clients write and delete one item at once, "
                        + "as apps of one group signing in and out together do; restart it and the apps go on"),
                ProviderQuirk(
                    id: "keepassxc-change-during-save-crash",
                    summary: "KeePassXC 2.7.4 can crash (SIGSEGV) when a change arrives while it saves after another change "
                        + "(\"Automatically save after every change\", on by default, saves on a worker thread); the call "
                        + "fails timedOut, then noProvider: restart it and the apps go on"),
                ProviderQuirk(
                    id: "keepassxc-unlock-dialog-stays",
                    summary: "a client's unlock prompt opens KeePassXC's unlock dialog, which the store's Dismiss (after "
                        + "its unlockTimeout) does not close; while it is open KeePassXC neither locks nor quits"),
                ProviderQuirk(
                    id: "keepassxc-per-client-confirmation",
                    summary: "with \"Confirm when passwords are retrieved by clients\" on, each new client is asked for "
                        + "in a dialog (the only per-client access control among the providers)"),
            ]
        case .kWallet:
            [
                ProviderQuirk(
                    id: "kwallet-session-bug",
                    summary: "KDE bug 514194 (every KF5 kwalletd, fixed in KWallet 6.25): about 1 % of encrypted sessions "
                        + "fail (\"the provider returned no secret\", a write may leave an empty secret, and rarely a read or a write "
                        + "gives other bytes with no error); the store retries the call on a fresh session, and reads a "
                        + "record that does not decode again"),
                ProviderQuirk(
                    id: "kwallet-text-content-type",
                    summary: "secrets of a text/* content type are stored as text (bytes that are not UTF-8 come back mangled); "
                        + "the store sends every secret as application/octet-stream"),
                ProviderQuirk(
                    id: "kwallet-label-kept-on-replace",
                    summary: "replacing an item keeps its old label"),
                ProviderQuirk(
                    id: "kwallet-signals-per-path",
                    summary: "item signals come once per path the collection is exported at (its own and each alias), "
                        + "and attribute changes emit none"),
            ]
        case .other:
            []
        }
    }
}
