import Foundation

/// An HTTP request as the emulator's operations see it, apart from any server.
struct EmulatorRequest: Sendable {
    var method: String
    /// The path without the query, for example `/identitytoolkit.googleapis.com/v1/accounts:signUp`.
    var path: String
    var query: [String: String]
    var headers: [String: String]
    var body: Data

    /// - Parameter target: the request target, path and query (`/a/b?key=…`).
    init(method: String, target: String, headers: [String: String] = [:], body: Data = Data()) {
        self.method = method.uppercased()
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(parts.first ?? "")
        self.path = rawPath.removingPercentEncoding ?? rawPath
        self.query = parts.count > 1 ? FormFields.parse(String(parts[1])).compactMapValues(\.first) : [:]
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The API key, from the `key` parameter or the `X-Goog-Api-Key` header.
    var apiKey: String? {
        let key = query["key"] ?? headers["x-goog-api-key"]
        return key?.isEmpty == false ? key : nil
    }

    /// The body's fields: JSON, or `application/x-www-form-urlencoded` (both as the real service accepts).
    func fields() throws(EmulatorFailure) -> RequestFields {
        if body.isEmpty { return RequestFields(values: [:]) }
        let contentType = headers["content-type"]?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            guard let text = String(data: body, encoding: .utf8) else {
                throw EmulatorFailure("INVALID_ARGUMENT : Invalid form payload received. It is not UTF-8.")
            }
            return RequestFields(values: FormFields.parse(text).mapValues { $0.count == 1 ? $0[0] as Any : $0 as Any })
        }
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            throw EmulatorFailure("INVALID_ARGUMENT : Invalid JSON payload received.")
        }
        guard let values = object as? [String: Any] else {
            throw EmulatorFailure("INVALID_ARGUMENT : Invalid JSON payload received. The body must be a JSON object.")
        }
        return RequestFields(values: values)
    }
}

/// Fields of a request body, read with the types the REST API declares.
struct RequestFields {
    let values: [String: Any]

    /// A string field; a field of another type is `INVALID_ARGUMENT`, as the real service answers.
    func string(_ name: String) throws(EmulatorFailure) -> String? {
        guard let value = values[name], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw invalid(name) }
        return string
    }

    /// A boolean field; forms send `true` / `false`.
    func bool(_ name: String) throws(EmulatorFailure) -> Bool? {
        guard let value = values[name], !(value is NSNull) else { return nil }
        if let string = value as? String {
            switch string.lowercased() {
            case "true": return true
            case "false": return false
            default: throw invalid(name)
            }
        }
        guard let bool = value as? Bool else { throw invalid(name) }
        return bool
    }

    /// A list of strings; a form sends one value per repetition of the name.
    func strings(_ name: String) throws(EmulatorFailure) -> [String] {
        guard let value = values[name], !(value is NSNull) else { return [] }
        if let string = value as? String { return [string] }
        guard let list = value as? [Any], let strings = list as? [String] else { throw invalid(name) }
        return strings
    }

    /// A whole number, as a JSON number or a decimal string (the Admin SDKs send both, for example `validSince`).
    func integer(_ name: String) throws(EmulatorFailure) -> Int64? {
        guard let value = values[name], !(value is NSNull) else { return nil }
        if let string = value as? String {
            guard let number = Int64(string) else { throw invalid(name) }
            return number
        }
        // A JSON boolean is an NSNumber too; its type is a char ("c"), a number's never is.
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c", let exact = Int64(exactly: number.doubleValue) else {
            throw invalid(name)
        }
        return exact
    }

    /// An enumeration field: its name, or its number in the service's protocol buffer (as Android's SDK sends it),
    /// given as a name by `numbers`; an unknown number is `INVALID_ARGUMENT`.
    func enumeration(_ name: String, _ numbers: [Int64: String]) throws(EmulatorFailure) -> String? {
        if let string = values[name] as? String { return string }
        guard let number = try integer(name) else { return nil }
        guard let named = numbers[number] else { throw invalid(name) }
        return named
    }

    /// A JSON object field, as fields of its own.
    func object(_ name: String) throws(EmulatorFailure) -> RequestFields? {
        guard let value = values[name], !(value is NSNull) else { return nil }
        guard let object = value as? [String: Any] else { throw invalid(name) }
        return RequestFields(values: object)
    }

    /// A list of JSON objects, each as fields of its own.
    func objects(_ name: String) throws(EmulatorFailure) -> [RequestFields] {
        guard let value = values[name], !(value is NSNull) else { return [] }
        guard let list = value as? [Any], let objects = list as? [[String: Any]] else { throw invalid(name) }
        return objects.map(RequestFields.init(values:))
    }

    /// Whether the field is there (with any value but `null`).
    func has(_ name: String) -> Bool {
        guard let value = values[name] else { return false }
        return !(value is NSNull)
    }

    private func invalid(_ name: String) -> EmulatorFailure {
        EmulatorFailure("INVALID_ARGUMENT : Invalid value at '\(name)'")
    }
}

/// `application/x-www-form-urlencoded`, which query strings share.
enum FormFields {
    static func parse(_ text: String) -> [String: [String]] {
        var fields: [String: [String]] = [:]
        for pair in text.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            fields[name, default: []].append(value)
        }
        return fields
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// An answer: a status and a JSON body.
struct EmulatorResponse: Sendable {
    var status: Int
    var body: Data
    var contentType = "application/json; charset=UTF-8"
    /// Headers besides `Content-Type`, `Content-Length` and `Connection`, for example `Location`.
    var headers: [(name: String, value: String)] = []

    /// A page of plain text, for a person's browser (`/emulator/action`).
    static func text(_ text: String, status: Int = 200) -> EmulatorResponse {
        EmulatorResponse(status: status, body: Data(text.utf8), contentType: "text/plain; charset=UTF-8")
    }

    /// Headers of a page for a person's browser that holds a sign-in's secrets: not kept, not framed, and not
    /// named in the `Referer` of where it leads.
    static let privatePageHeaders: [(name: String, value: String)] = [
        ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"),
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
    ]

    /// An HTML page for a person's browser (the emulator's identity provider page).
    static func html(_ html: String, status: Int = 200) -> EmulatorResponse {
        EmulatorResponse(status: status, body: Data(html.utf8), contentType: "text/html; charset=UTF-8", headers: privatePageHeaders)
    }

    /// A script for a browser (the stand-in reCAPTCHA's), loaded by pages of any origin.
    static func javascript(_ source: String) -> EmulatorResponse {
        EmulatorResponse(
            status: 200, body: Data(source.utf8), contentType: "text/javascript; charset=UTF-8",
            headers: [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")])
    }

    /// A 302 that sends the browser to `location`, with a line of text for a client that does not follow it.
    static func redirect(to location: String) -> EmulatorResponse {
        EmulatorResponse(
            status: 302, body: Data("Continue at the address in Location.\n".utf8), contentType: "text/plain; charset=UTF-8",
            headers: privatePageHeaders + [("Location", location)])
    }

    /// A JSON object; plain values always serialize.
    static func json(_ object: [String: Any], status: Int = 200) -> EmulatorResponse {
        EmulatorResponse(status: status, body: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}

/// A refusal in the real service's shape: `{"error": {"code": 400, "message": "CODE : detail", "errors": […]}}`.
struct EmulatorFailure: Error, Sendable {
    var status: Int
    var message: String
    /// Google's status name (`INVALID_ARGUMENT`, `PERMISSION_DENIED`), when the real service sends one.
    var grpcStatus: String?
    /// Whether the answer carries Identity Toolkit's `errors` list; App Check's refusal has only the code, message and status.
    var listsErrors: Bool

    init(_ message: String, status: Int = 400, grpcStatus: String? = nil, listsErrors: Bool = true) {
        self.status = status
        self.message = message
        self.grpcStatus = grpcStatus ?? (message.hasPrefix("INVALID_ARGUMENT") ? "INVALID_ARGUMENT" : nil)
        self.listsErrors = listsErrors
    }

    /// The code the message begins with, for example `EMAIL_EXISTS`.
    var code: String { String(message.prefix { $0 != " " && $0 != ":" }) }

    static func notFound(_ request: EmulatorRequest) -> EmulatorFailure {
        EmulatorFailure("Not Found: \(request.method) \(request.path)", status: 404, grpcStatus: "NOT_FOUND")
    }

    /// A known path asked with another method.
    static func methodNotAllowed(_ request: EmulatorRequest) -> EmulatorFailure {
        EmulatorFailure("Method \(request.method) not allowed for \(request.path)", status: 405)
    }

    /// Something Firebase's service does that this emulator does not.
    static func notImplemented(_ message: String) -> EmulatorFailure {
        EmulatorFailure(message, status: 501, grpcStatus: "NOT_IMPLEMENTED")
    }

    /// The answer. The secure-token and App Check services answer without `errors` and with a status, as Google does.
    func response(secureTokenShape: Bool = false) -> EmulatorResponse {
        var error: [String: Any] = ["code": status, "message": message]
        if secureTokenShape || !listsErrors {
            error["status"] = grpcStatus ?? "INVALID_ARGUMENT"
        } else {
            let reason = switch status {
            case 403: "forbidden"
            case 401: "authError"
            case 404: "notFound"
            case 501: "unimplemented"
            case 413: "payloadTooLarge"
            default: "invalid"
            }
            error["errors"] = [["message": message, "domain": "global", "reason": reason]]
            error["status"] = grpcStatus
        }
        return .json(["error": error], status: status)
    }
}
