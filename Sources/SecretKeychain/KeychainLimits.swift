/// Limits every store enforces, so that a value stored in one store can be stored in any other.
public enum KeychainLimits {
    /// The largest secret accepted: 1 MiB (1,048,576 bytes). Larger values throw ``KeychainError/payloadTooLarge(size:limit:)``.
    public static let maximumSecretSize = 1 << 20

    static func validate(secretSize size: Int) throws(KeychainError) {
        if size > maximumSecretSize {
            throw .payloadTooLarge(size: size, limit: maximumSecretSize)
        }
    }
}
