import Foundation
import SecretKeychain

/// The user as stored in the keychain: versioned JSON holding the fields Firebase persists.
/// Unknown fields are ignored on read, so later versions can add fields without breaking older apps.
struct StoredUserRecord: Hashable, Sendable, Codable {
    /// The format written by this version.
    static let currentVersion = 1

    var version: Int = currentVersion
    var uid: String
    var isAnonymous: Bool
    var hasEmailPassword: Bool
    var email: String?
    var emailVerified: Bool
    var displayName: String?
    var photoURL: URL?
    var phoneNumber: String?
    var providerData: [ProviderUserInfo]
    var creationDate: Date?
    var lastSignInDate: Date?
    var tenantID: String?
    /// The API key the user signed in with.
    var apiKey: String
    /// The app that stored the record.
    var appID: String
    var tokens: AuthTokens
    /// The second factors enrolled, as the last lookup listed them (absent in records of earlier versions).
    var secondFactors: [StoredSecondFactor]?

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()

    /// The record as stored.
    func encoded() -> Data {
        // Encoding plain strings, numbers and dates cannot fail.
        try! Self.encoder.encode(self)
    }

    /// Reads a stored record.
    ///
    /// - Throws: ``AuthError`` with ``AuthErrorCode/corruptStoredUser``, naming `key`; nothing is changed.
    static func decode(_ data: Data, key: KeychainKey) throws(AuthError) -> StoredUserRecord {
        let record: StoredUserRecord
        do {
            record = try decoder.decode(StoredUserRecord.self, from: data)
        } catch let error as DecodingError {
            throw corrupt(key, error.readableDescription)
        } catch {
            throw corrupt(key, "\(error)")
        }
        guard record.version >= 1 else { throw corrupt(key, "its version \(record.version) is not a known format") }
        guard !record.uid.isEmpty else { throw corrupt(key, "its uid is empty") }
        guard (record.secondFactors?.count ?? 0) <= SecondFactorPendingReply.maximumFactors else {
            throw corrupt(key, "it lists more than \(SecondFactorPendingReply.maximumFactors) second factors")
        }
        return record
    }

    private static func corrupt(_ key: KeychainKey, _ reason: String) -> AuthError {
        AuthError(
            .corruptStoredUser,
            "The stored user for \(key) cannot be read: \(reason). It was left as it is; sign in again to "
                + "replace it, or remove it with `secret-tool clear service \(key.service) account \(key.account)`.")
    }
}

extension StoredUserRecord {
    /// Takes the profile fields of an `accounts:lookup` answer.
    mutating func apply(_ account: BackendAccount) {
        email = account.email
        emailVerified = account.emailVerified
        displayName = account.displayName
        photoURL = account.photoURL
        phoneNumber = account.phoneNumber
        providerData = account.providers
        hasEmailPassword = account.providers.contains { $0.providerID == "password" }
        // An anonymous account that gained a sign-in method (an email and password, an identity
        // provider) is anonymous no more, as in Firebase.
        if !account.providers.isEmpty { isAnonymous = false }
        creationDate = account.creationDate ?? creationDate
        lastSignInDate = account.lastSignInDate ?? lastSignInDate
        tenantID = account.tenantID ?? tenantID
        secondFactors = account.secondFactors.isEmpty ? nil : account.secondFactors.map(StoredSecondFactor.init)
    }
}

extension KeychainStore {
    /// The user record stored under `key`, decoded once, or why it does not decode (`corruptStoredUser`); `nil` when
    /// there is none. Read again where the provider may have garbled it (KWallet 5's session bug) when it does not
    /// decode: see ``KeychainStore/data(for:checkedBy:)``, whose check is this decoding.
    func userRecord(for key: KeychainKey) throws(KeychainError) -> Result<StoredUserRecord, AuthError>? {
        var checked: (data: Data, record: StoredUserRecord)?
        let stored = try data(for: key, checkedBy: { data in
            guard let record = try? StoredUserRecord.decode(data, key: key) else { return false }
            checked = (data, record)
            return true
        })
        guard let stored else { return nil }
        // The record the check decoded, where the bytes answered are those it checked (a store may check none).
        if let checked, checked.data == stored { return .success(checked.record) }
        return Result { () throws(AuthError) in try StoredUserRecord.decode(stored, key: key) }
    }

    /// Stores the user record `data` under `key`, written again where the provider may have garbled it
    /// (KWallet 5's session bug): see ``KeychainStore/setData(_:for:label:checkedBy:)``.
    func setUserRecordData(_ data: Data, for key: KeychainKey, label: String) throws(KeychainError) {
        try setData(data, for: key, label: label, checkedBy: { StoredUserRecord.isIntact($0, key: key) })
    }
}

extension StoredUserRecord {
    /// Whether `data` decodes as the user record of `key`.
    static func isIntact(_ data: Data, key: KeychainKey) -> Bool {
        (try? decode(data, key: key)) != nil
    }
}
