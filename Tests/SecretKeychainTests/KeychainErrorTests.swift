import SecretKeychain
import Testing

@Suite struct KeychainErrorTests {
    static let key = KeychainKey(service: "s", account: "a")

    /// Each case, with a phrase of the fix its message must give.
    static let cases: [(KeychainError, String)] = [
        (.noSessionBus(detail: "x"), "dbus-run-session"),
        (.noProvider(detail: "x"), "gnome-keyring-daemon --start"),
        (.noSuchCollection("the default alias", detail: "x"), "Create or choose a default keyring"),
        (.invalidCollectionPath("/a//b", reason: "x"), "/org/freedesktop/secrets/collection/login"),
        (.locked(collection: "the default alias"), "Unlock it"),
        (.timedOut(operation: "Reading s/a", limit: .milliseconds(1500)), "raise the time limit"),
        (.invalidAccessGroup("", violation: .empty), "Use a non-empty identifier"),
        (.invalidKey(key, reason: "the service is empty"), "Use a non-empty service and account"),
        (.payloadTooLarge(size: 2_000_000, limit: KeychainLimits.maximumSecretSize), "Store a smaller value"),
        (.oversizedItem("/x/2", size: 3_000_000, limit: KeychainLimits.maximumSecretSize), "remove it if it is not needed"),
        (.corruptItem("/x/1", reason: "y"), "secret-tool search --all xdg:schema org.keyringauth.KeychainItem.v1"),
        (.underlying(domain: "d", code: 1, message: "m"), "Check the provider's log"),
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

    @Test func onlyAWriteThatTimedOutHasAnUnknownOutcome() {
        let read = KeychainError.timedOut(operation: "Reading s/a", limit: .seconds(5), writes: false)
        #expect(!read.description.contains("may or may not"), "\(read)")
        #expect(read.description.contains("Nothing stored was changed"))
        let write = KeychainError.timedOut(operation: "Storing s/a", limit: .seconds(5), writes: true)
        #expect(write.description.contains("may or may not have taken effect"))
    }
}
