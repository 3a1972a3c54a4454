import Foundation
import SecretKeychain
import Testing

@testable import KeyringAuth
import KeyringTestSupport

/// The reference document, step by step, with two apps over `InMemoryStore`
/// (the integration tests run the same scenarios over gnome-keyring).
@Suite struct ReferenceWalkthroughTests {
    @Test(arguments: Walkthrough.all.map(\.0))
    func theScenarioBehavesAsTheReferenceDocuments(_ scenario: String) async throws {
        let run = try #require(Walkthrough.all.first { $0.0 == scenario }?.1)
        try await run(TwoApps())
    }
}
