import Foundation

/// A phone number proven by the SMS code sent to it, as Firebase's `PhoneAuthCredential`: made by
/// ``PhoneAuthProvider/credential(withVerificationID:verificationCode:)`` and passed to ``Auth/signIn(with:)``,
/// ``User/link(with:)``, ``User/reauthenticate(with:)``, ``User/updatePhoneNumber(_:)`` or
/// ``PhoneMultiFactorGenerator/assertion(with:)``. The ``AuthError/updatedCredential`` of a
/// ``AuthErrorCode/credentialAlreadyInUse`` error is one too: a proof that signs in to the account that has the number.
///
/// Opaque: printing or dumping it never shows the code or the proof.
public final class PhoneAuthCredential: AuthCredential, @unchecked Sendable {
    enum Kind: Hashable, Sendable {
        /// The verification ID `verifyPhoneNumber` gave and the code the SMS carried.
        case verification(id: String, code: String)
        /// The number and Firebase's proof that it was verified (a number another account has).
        case temporaryProof(phoneNumber: String, proof: String)
    }

    let kind: Kind

    init(verificationID: String, verificationCode: String) {
        kind = .verification(id: verificationID, code: verificationCode)
        super.init(provider: PhoneAuthProvider.id)
    }

    init(temporaryProof: String, phoneNumber: String) {
        kind = .temporaryProof(phoneNumber: phoneNumber, proof: temporaryProof)
        super.init(provider: PhoneAuthProvider.id)
    }

    override var comparableFields: [String?] {
        switch kind {
        case .verification(let id, let code): [provider, "verification", id, code]
        case .temporaryProof(let number, let proof): [provider, "proof", number, proof]
        }
    }

    /// Refuses a credential without its verification ID or code, or with oversized or control characters.
    override func checkUsable() throws(AuthError) {
        switch kind {
        case .verification(let id, let code):
            try Self.checkField(id, "verification ID", code: .missingVerificationID, required: true)
            try Self.checkField(code, "verification code", code: .missingVerificationCode, required: true)
        case .temporaryProof(let number, let proof):
            try PhoneNumber.check(number)
            try Self.checkField(proof, "temporary proof", code: .invalidCredential, required: true)
        }
    }
}
