/// The version `keyring-auth --version` prints: the one place it is written. Semantic versioning;
/// raise it with each release tag.
enum Version {
    static let current = "0.1.0"
}
