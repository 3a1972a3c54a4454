import CSecret
import FoundationEssentials
import SystemSupport

/// Conversions between Swift values and GVariants, for the broker's messages. Each function frees
/// what it allocates; a function that returns a `GVariant` returns it floating unless it says otherwise.
enum GVariants {
    /// A value of an `a{sv}` dictionary, as the broker takes and gives them.
    enum Value: Equatable, Sendable {
        case string(String)
        case bool(Bool)
        case int64(Int64)
        /// An `aa{sv}`: a list of dictionaries (a user's second factors).
        case dictionaries([[String: Value]])
        /// An `a{ss}`: a provider's custom parameters.
        case strings([String: String])
    }

    /// The most entries an `a{ss}` argument may hold.
    static let maximumStringEntries = 16

    /// A string.
    static func string(_ string: String) -> OpaquePointer {
        g_variant_new_string(string)
    }

    /// An `a{sv}` of `dictionary`, its keys sorted.
    static func dictionary(_ dictionary: [String: Value]) -> OpaquePointer {
        GVariantValues.array(of: "{sv}", dictionary.sorted { $0.key < $1.key }.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(variant(of: value)))
        })
    }

    private static func variant(of value: Value) -> OpaquePointer {
        switch value {
        case .string(let string): g_variant_new_string(string)
        case .bool(let bool): g_variant_new_boolean(bool ? 1 : 0)
        case .int64(let number): g_variant_new_int64(gint64(number))
        case .dictionaries(let list): GVariantValues.array(of: "a{sv}", list.map { dictionary($0) })
        case .strings(let strings):
            GVariantValues.array(of: "{ss}", strings.sorted { $0.key < $1.key }.map { g_variant_new_dict_entry(g_variant_new_string($0), g_variant_new_string($1)) })
        }
    }

    /// The string entries of an `a{sv}` that may hold only `keys`, each at most once and each a string of at most
    /// `limit` bytes without control characters. An argument with more entries than `keys` is refused before any entry
    /// is read; `shape` says what `name` must be, for the error.
    static func strings(
        of variant: OpaquePointer, name: String, keys: [String], limit: Int, limits: [String: Int] = [:], shape: String
    ) throws(BrokerError) -> [String: String] {
        let entries = try values(
            of: variant, name: name, keys: Dictionary(uniqueKeysWithValues: keys.map { ($0, "s") }), limit: limit, limits: limits, shape: shape)
        return entries.compactMapValues { if case .string(let string) = $0 { string } else { nil } }
    }

    /// The entries of an `a{sv}` that may hold only the keys of `types`, each at most once and of its type there (`s`,
    /// a string of at most `limit` bytes without control characters; `b`; or `a{ss}`, at most ``maximumStringEntries``
    /// such strings by such keys). An argument with more entries than keys
    /// is refused before any entry is read; `shape` says what `name` must be, for the error. `limits` gives a string key
    /// a limit of its own.
    static func values(
        of variant: OpaquePointer, name: String, keys types: [String: String], limit: Int, limits: [String: Int] = [:], shape: String
    ) throws(BrokerError) -> [String: Value] {
        let keys = types.keys.sorted()
        guard GVariantValues.hasType(variant, "a{sv}") else { throw BrokerError(.invalidArgument, "\(name) must be \(shape).") }
        let count = Int(g_variant_n_children(variant))
        guard count <= keys.count else {
            throw BrokerError(.invalidArgument, "\(name) has \(count) entries; it takes at most \(keys.count): \(keys.joined(separator: ", ")).")
        }
        var values: [String: Value] = [:]
        for index in 0..<count {
            let entry = g_variant_get_child_value(variant, gsize(index))!
            defer { g_variant_unref(entry) }
            let key = GVariantValues.string(at: 0, of: entry)
            guard let type = types[key] else {
                throw BrokerError(.invalidArgument, "\(name) has an unknown key \(BrokerArguments.quoted(key)); it takes \(keys.joined(separator: ", ")).")
            }
            guard values[key] == nil else { throw BrokerError(.invalidArgument, "\(name) has \(key) twice.") }
            let boxed = g_variant_get_child_value(entry, 1)!
            defer { g_variant_unref(boxed) }
            let value = g_variant_get_variant(boxed)!
            defer { g_variant_unref(value) }
            guard GVariantValues.hasType(value, type) else {
                let kind = ["b": "a boolean", "a{ss}": "a dictionary of strings (a{ss})"][type] ?? "a string"
                throw BrokerError(.invalidArgument, "\(name)'s \(key) must be \(kind).")
            }
            if type == "a{ss}" {
                values[key] = .strings(try strings(of: value, name: "\(name)'s \(key)", limit: limit))
            } else if type == "b" {
                values[key] = .bool(g_variant_get_boolean(value) != 0)
            } else {
                let string = String(cString: g_variant_get_string(value, nil))
                try BrokerArguments.checkString(string, of: "\(name)'s \(key)", limit: limits[key] ?? limit)
                values[key] = .string(string)
            }
        }
        return values
    }

    /// An `as` of `strings`.
    static func array(of strings: [String]) -> OpaquePointer {
        GVariantValues.array(of: "s", strings.map { g_variant_new_string($0) })
    }

    /// The entries of an `a{ss}`: at most ``maximumStringEntries``, each key once, keys and values checked as strings.
    private static func strings(of value: OpaquePointer, name: String, limit: Int) throws(BrokerError) -> [String: String] {
        let count = Int(g_variant_n_children(value))
        guard count <= maximumStringEntries else {
            throw BrokerError(.invalidArgument, "\(name) has \(count) entries; it takes at most \(maximumStringEntries).")
        }
        var strings: [String: String] = [:]
        for index in 0..<count {
            let entry = g_variant_get_child_value(value, gsize(index))!
            defer { g_variant_unref(entry) }
            let (key, string) = (GVariantValues.string(at: 0, of: entry), GVariantValues.string(at: 1, of: entry))
            try BrokerArguments.checkString(key, of: "a key of \(name)", limit: limit)
            try BrokerArguments.checkString(string, of: "\(name)'s \(BrokerArguments.quoted(key))", limit: limit)
            guard !key.isEmpty, strings.updateValue(string, forKey: key) == nil else {
                throw BrokerError(.invalidArgument, "\(name) has an empty key, or a key twice.")
            }
        }
        return strings
    }

    /// A 64-bit integer.
    static func int64(_ value: Int64) -> OpaquePointer {
        g_variant_new_int64(gint64(value))
    }

    /// A boolean.
    static func bool(_ value: Bool) -> OpaquePointer {
        g_variant_new_boolean(value ? 1 : 0)
    }

    /// Child `index` of a tuple, which the caller unrefs.
    static func child(at index: Int, of tuple: OpaquePointer) -> OpaquePointer {
        g_variant_get_child_value(tuple, gsize(index))!
    }

    /// Drops a reference the caller holds (from ``child(at:of:)``).
    static func release(_ variant: OpaquePointer) {
        g_variant_unref(variant)
    }
}
