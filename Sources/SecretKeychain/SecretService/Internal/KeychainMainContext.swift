import CSecret
import SystemSupport

extension MainContexts {
    /// A new main context for a keychain call or observation, its failure as the keychain's error.
    ///
    /// - Throws: ``KeychainError/underlying(domain:code:message:)`` (domain `descriptors`) when the process is out of
    ///   descriptors: the call is not made, and the process goes on.
    static func forKeychain() throws(KeychainError) -> OpaquePointer {
        do throws(DescriptorShortage) {
            return try make()
        } catch {
            throw .underlying(domain: "descriptors", code: Int(error.code), message: "The keychain call was not made: \(error.explanation).")
        }
    }
}
