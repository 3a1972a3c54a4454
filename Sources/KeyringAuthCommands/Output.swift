import SystemSupport
import Foundation
import KeyringAuth
import SecretKeychain

/// Prints a JSON value on one line, keys sorted.
func printJSON(_ value: Any) {
    print(jsonLine(value))
}

/// A JSON value on one line, keys sorted.
func jsonLine(_ value: Any) -> String {
    // Strings, numbers, booleans, nulls, arrays and dictionaries of them always serialize.
    let data = try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
}

/// A value for JSON: the string, or `null`.
func nullable(_ value: String?) -> Any { value.map { $0 as Any } ?? NSNull() }

/// Prints a line of human output with control and invisible characters escaped: it may hold
/// values that came from the keyring or the backend.
func printLine(_ line: String) {
    print(line.escapedForTerminal)
}

/// `AIzaSyA…3xQ0`: enough to tell keys apart, not the whole key. Shortened by characters first,
/// then each part escaped (``Swift/String/escapedForTerminal``), so no escape is ever cut in half.
/// For human output and JSON alike: its parts are escaped, and JSON escapes a backslash again.
func shortened(_ apiKey: String) -> String {
    guard apiKey.count > 12 else { return apiKey.escapedForTerminal }
    return "\(String(apiKey.prefix(7)).escapedForTerminal)…\(String(apiKey.suffix(4)).escapedForTerminal)"
}

/// Dates as ISO 8601 in UTC, as scripts expect.
func timestamp(_ date: Date) -> String {
    date.formatted(.iso8601)
}

/// Columns padded to their widest cell. Every cell is printed escaped (``Swift/String/escapedForTerminal``):
/// stored data never reaches the terminal as control characters.
func printTable(_ header: [String], _ rows: [[String]]) {
    let table = ([header] + rows).map { $0.map(\.escapedForTerminal) }
    let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
    for row in table {
        let cells = row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }
        print(cells.joined(separator: "  "))
    }
}

extension StoredUserSummary {
    /// The user as `show` and `sign-in` print it; tokens only when asked.
    func json(group: AccessGroup?, showingTokens: Bool) -> [String: Any] {
        var object: [String: Any] = [
            "uid": uid, "isAnonymous": isAnonymous, "providers": providers, "apiKey": shortened(apiKey), "appID": appID,
            "accessGroup": nullable(group?.rawValue), "tokenExpiration": timestamp(tokens.expirationDate),
            "email": nullable(email), "emailVerified": isEmailVerified, "displayName": nullable(displayName),
            "phoneNumber": nullable(phoneNumber), "secondFactors": secondFactors.map(factorJSON),
        ]
        if showingTokens {
            object["idToken"] = tokens.idToken
            object["refreshToken"] = tokens.refreshToken
        }
        return object
    }

    /// The user as `show` prints it, one field a line, every stored value escaped.
    func printText(group: AccessGroup?, showingTokens: Bool) {
        func field(_ name: String, _ value: String) { print("\(name): \(value.escapedForTerminal)") }
        field("uid", uid)
        field("scope", group.map { "group \($0)" } ?? "private")
        field("anonymous", isAnonymous ? "yes" : "no")
        if let email { field("email", email + (isEmailVerified ? " (verified)" : " (not verified)")) }
        if let displayName { field("display name", displayName) }
        if let phoneNumber { field("phone", phoneNumber) }
        field("sign-in methods", providers.isEmpty ? "none" : providers.joined(separator: ", "))
        field("token expires", timestamp(tokens.expirationDate))
        for factor in secondFactors { print("second factor: \(factorLine(factor))") }
        if showingTokens {
            field("id token", tokens.idToken)
            field("refresh token", tokens.refreshToken)
        }
    }
}

/// A second factor as `show --json` and `mfa list --json` print it.
func factorJSON(_ factor: MultiFactorInfo) -> [String: Any] {
    var json: [String: Any] = [
        "uid": factor.uid, "displayName": nullable(factor.displayName), "enrollmentDate": timestamp(factor.enrollmentDate), "factorID": factor.factorID,
    ]
    if let phone = factor as? PhoneMultiFactorInfo { json["phoneNumber"] = phone.phoneNumber }
    return json
}

/// A second factor on one line, stored values escaped: `UID "NAME" (totp, enrolled DATE)`, `(phone +15555550100, …)`.
func factorLine(_ factor: MultiFactorInfo) -> String {
    let number = (factor as? PhoneMultiFactorInfo).map { " \($0.phoneNumber)" } ?? ""
    return "\(factor.uid.escapedForTerminal) \(String(reflecting: factor.displayName ?? "").escapedForTerminal) "
        + "(\(factor.factorID.escapedForTerminal)\(number.escapedForTerminal), enrolled \(timestamp(factor.enrollmentDate)))"
}

/// Decoded claims as a JSON value: the types ``AuthTokenResult/claims`` holds, anything else as text.
func jsonValue(_ value: any Sendable) -> Any {
    switch value {
    case let dictionary as [String: any Sendable]: dictionary.mapValues(jsonValue)
    case let array as [any Sendable]: array.map(jsonValue)
    case let bool as Bool: bool
    case let int as Int: int
    case let double as Double: double
    case let string as String: string
    default: "\(value)"
    }
}
