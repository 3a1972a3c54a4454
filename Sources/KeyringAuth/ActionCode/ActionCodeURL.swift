import Foundation

/// The parts of an email action link, as Firebase's `ActionCodeURL`: its code, what it does, the continue URL
/// and language. A link from Firebase Hosting or Dynamic Links that carries the action link in its `link`
/// parameter is read through it.
///
/// The link is untrusted input (pasted by a person, or passed by another program): links over
/// ``AuthCredential/maximumFieldBytes`` are refused.
public struct ActionCodeURL: Sendable, Hashable {
    /// The `apiKey` parameter, if any.
    public let apiKey: String?
    /// What the link's code does (its `mode`); ``ActionCodeOperation/unknown`` without one.
    public let operation: ActionCodeOperation
    /// The `oobCode` parameter, if any.
    public let code: String?
    /// The `continueUrl` parameter, if any.
    public let continueURL: URL?
    /// The `lang` parameter, if any.
    public let languageCode: String?

    /// The parts of `link`, or `nil` when it is too long or has no query parameters.
    public init?(link: String) {
        guard link.utf8.count <= AuthCredential.maximumFieldBytes, var items = Self.queryItems(of: link) else { return nil }
        // A Hosting or Dynamic Links URL wraps the action link in `link` (or `deep_link_id`).
        if items["oobCode"] == nil, let inner = items["link"] ?? items["deep_link_id"], let innerItems = Self.queryItems(of: inner),
            innerItems["oobCode"] != nil
        {
            items = innerItems
        }
        apiKey = items["apiKey"]
        operation = ActionCodeOperation(requestTypeOrMode: items["mode"])
        code = items["oobCode"].flatMap { $0.isEmpty ? nil : $0 }
        continueURL = items["continueUrl"].flatMap(URL.init(string:))
        languageCode = items["lang"]
    }

    /// The query parameters of `link` (the first value of each name), or `nil` when it has none.
    private static func queryItems(of link: String) -> [String: String]? {
        guard let items = URLComponents(string: link.trimmingCharacters(in: .whitespaces))?.queryItems, !items.isEmpty else {
            return nil
        }
        var values: [String: String] = [:]
        for item in items where values[item.name] == nil { values[item.name] = item.value ?? "" }
        return values
    }
}
