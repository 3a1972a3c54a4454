import Foundation
import Testing

@testable import SecretKeychain

/// gnome-keyring returns search results most recently modified first, so the integration tests
/// cannot tell "newest" from "the provider's first"; other providers order differently. The rule
/// reads use when a key has several items is pinned here.
@Suite struct NewestItemTests {
    func item(_ number: Int, created: TimeInterval, modified: TimeInterval) -> SecretItemProperties {
        SecretItemProperties(
            path: "/org/freedesktop/secrets/collection/login/\(number)", label: "", attributes: [:],
            created: Date(timeIntervalSince1970: created), modified: Date(timeIntervalSince1970: modified))
    }

    func newest(_ items: [SecretItemProperties]) -> Int? {
        items.min(by: SecretItemProperties.isNewer).flatMap { Int($0.path.split(separator: "/").last!) }
    }

    @Test func theLatestModificationWins() {
        #expect(newest([item(1, created: 0, modified: 30), item(2, created: 10, modified: 20)]) == 1)
        #expect(newest([item(2, created: 10, modified: 20), item(1, created: 0, modified: 30)]) == 1)
    }

    @Test func thenTheLatestCreation() {
        #expect(newest([item(1, created: 5, modified: 30), item(2, created: 10, modified: 30)]) == 2)
        #expect(newest([item(2, created: 10, modified: 30), item(1, created: 5, modified: 30)]) == 2)
    }

    @Test func thenTheHighestItemNumberNotTheTextualOrder() {
        let tied = [item(9, created: 0, modified: 0), item(10, created: 0, modified: 0), item(2, created: 0, modified: 0)]
        #expect(newest(tied) == 10)
        #expect(newest(tied.reversed()) == 10)
    }
}
