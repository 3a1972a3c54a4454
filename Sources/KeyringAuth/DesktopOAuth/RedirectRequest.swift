import Foundation

/// One request head, parsed with limits: `METHOD /path?query HTTP/1.x` and the `Host` header.
struct RedirectRequest {
    let method: String
    let path: String
    /// The request target as sent: the path and the query, still percent-encoded.
    let target: String
    let host: String?
    let parameters: [String: String?]

    /// Parameters beyond this many make the request unreadable.
    static let maximumParameters = 32

    init?(head: [UInt8]) {
        guard let text = String(validating: head, as: UTF8.self) else { return nil }
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(requestLine[0])
        let target = requestLine[1]
        self.target = String(target)
        let query: Substring
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = target[target.index(after: mark)...]
        } else {
            path = String(target)
            query = ""
        }
        var host: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            if line[..<colon].lowercased() == "host" {
                guard host == nil else { return nil }
                host = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        self.host = host
        var parameters: [String: String?] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count == 2 ? parts[1] : "") else { return nil }
            parameters[name] = parameters.keys.contains(name) ? String?.none : value
            guard parameters.count <= Self.maximumParameters else { return nil }
        }
        self.parameters = parameters
    }

    /// A query component: `+` is a space, then percent-decoding.
    private static func decode(_ component: Substring) -> String? {
        component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
