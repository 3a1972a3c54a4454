import SecretKeychain
import Testing

@Suite struct CollectionPathTests {
    @Test(arguments: ["/a//b", "/a/", "/a b", "a/b", "", "/a-b", "/é", "//"])
    func invalidObjectPathsAreRefused(_ path: String) {
        #expect(SecretServiceStore.Collection(argument: path) == nil)
        #expect(SecretServiceStore.Collection.objectPathViolation(in: path) != nil)
        #expect(throws: KeychainError.self) { try SecretServiceStore.Collection.objectPath(validating: path) }
    }

    @Test(arguments: ["/", "/org/freedesktop/secrets/collection/login", "/a/B_9"])
    func validObjectPathsAreAccepted(_ path: String) throws {
        #expect(SecretServiceStore.Collection(argument: path) == .objectPath(path))
        #expect(try SecretServiceStore.Collection.objectPath(validating: path) == .objectPath(path))
    }

    @Test func theErrorNamesThePathAndTheRule() {
        #expect(throws: KeychainError.invalidCollectionPath("/a//b", reason: "it contains an empty element (//)")) {
            try SecretServiceStore.Collection.objectPath(validating: "/a//b")
        }
        #expect(SecretServiceStore.Collection.objectPathViolation(in: "/a/") == "it ends with /")
        #expect(SecretServiceStore.Collection(argument: "default") == .defaultAlias)
        #expect(SecretServiceStore.Collection(argument: "session") == .sessionAlias)
    }
}
