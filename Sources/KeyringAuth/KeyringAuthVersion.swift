/// The package's version: what `keyring-auth --version` prints and requests name in `X-Client-Version`; the one place
/// it is written. Semantic versioning; raise it with each release tag.
package enum KeyringAuthVersion {
    package static let current = "0.1.0"
}
