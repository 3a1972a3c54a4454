/// An SMS code for a phone second factor, as Firebase's `PhoneMultiFactorAssertion`.
/// (`@unchecked Sendable`: every stored property is a constant.)
public final class PhoneMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    let credential: PhoneAuthCredential

    init(credential: PhoneAuthCredential) {
        self.credential = credential
        super.init(factorID: PhoneMultiFactorID)
    }
}

/// Makes the assertion of an SMS second factor, as Firebase's `PhoneMultiFactorGenerator`.
public enum PhoneMultiFactorGenerator {
    /// The assertion of the code sent by ``PhoneAuthProvider/verifyPhoneNumber(_:uiDelegate:multiFactorSession:)``: with
    /// an enrollment's session, for ``MultiFactor/enroll(with:displayName:)``; with a sign-in's hint
    /// (``PhoneAuthProvider/verifyPhoneNumber(with:uiDelegate:multiFactorSession:)``), for
    /// ``MultiFactorResolver/resolveSignIn(with:)``.
    public static func assertion(with phoneAuthCredential: PhoneAuthCredential) -> PhoneMultiFactorAssertion {
        PhoneMultiFactorAssertion(credential: phoneAuthCredential)
    }
}
