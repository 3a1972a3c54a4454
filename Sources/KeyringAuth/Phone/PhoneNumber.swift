/// Phone numbers as Firebase takes them: E.164, a `+`, the country code and the number, 15 digits at most.
enum PhoneNumber {
    /// Refuses a number that is not E.164 before anything is sent.
    ///
    /// - Throws: ``AuthError``: ``AuthErrorCode/missingPhoneNumber`` for an empty number,
    ///   ``AuthErrorCode/invalidPhoneNumber`` for one not in E.164 form.
    static func check(_ number: String) throws(AuthError) {
        guard !number.isEmpty else {
            throw AuthError(.missingPhoneNumber, "No phone number was given; pass the number in E.164 form, such as +15555550100.")
        }
        let digits = number.utf8.dropFirst()
        guard number.utf8.first == UInt8(ascii: "+"), (2...15).contains(digits.count), digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            throw AuthError(
                .invalidPhoneNumber,
                "The phone number is not in E.164 form: a +, the country code and the number, digits only (up to 15), "
                    + "such as +15555550100.")
        }
    }
}
