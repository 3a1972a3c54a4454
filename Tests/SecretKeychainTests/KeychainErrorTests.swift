import SecretKeychain
import Testing

@Suite struct KeychainErrorTests {
    static let key = KeychainKey(service: "s", account: "a")

    /// Each case, with a phrase of the fix its message must give.
    static let cases: [(KeychainError, String)] = [
        (.noSessionBus(detail: "x"), "dbus-run-session"),
        (.noProvider(detail: "x"), "gnome-keyring-daemon --start"),
        (.noSuchCollection("the default alias", detail: "x"), "Create or choose a default keyring"),
        (.locked(collection: "the default alias"), "Unlock it"),
        (.timedOut(operation: "Reading s/a", limit: .milliseconds(1500)), "raise the time limit"),
        (.invalidAccessGroup("", violation: .empty), "Use a non-empty identifier"),
        (.invalidKey(key, reason: "the service is empty"), "Use a non-empty service and account"),
        (.payloadTooLarge(size: 2_000_000, limit: KeychainLimits.maximumSecretSize), "Store a smaller value"),
        (.corruptItem("/x/1", reason: "y"), "secret-tool search --all xdg:schema org.keyringauth.KeychainItem.v1"),
        (.underlying(domain: "d", code: 1, message: "m"), "--verbose"),
    ]

    @Test func everyMessageSaysWhatToDo() {
        for (error, fix) in Self.cases {
            #expect(error.description.contains(fix), "\(error.code): \(error.description)")
        }
    }

    @Test func codesAreDistinctAndStable() {
        let codes = Self.cases.map(\.0.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.first == "noSessionBus")
    }

    @Test func timeLimitsAreWrittenInSeconds() {
        #expect(KeychainError.timedOut(operation: "Reading", limit: .seconds(5)).description.contains("within 5 s"))
        #expect(KeychainError.timedOut(operation: "Reading", limit: .milliseconds(1500)).description.contains("within 1.5 s"))
    }
}
