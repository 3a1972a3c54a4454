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
    }

    /// A tuple of `children` (each floating, consumed).
    static func tuple(_ children: [OpaquePointer?]) -> OpaquePointer {
        var children = children
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    /// A string.
    static func string(_ string: String) -> OpaquePointer {
        g_variant_new_string(string)
    }

    /// An `a{sv}` of `dictionary`, its keys sorted.
    static func dictionary(_ dictionary: [String: Value]) -> OpaquePointer {
        let entryType = g_variant_type_new("{sv}")
        defer { g_variant_type_free(entryType) }
        var entries: [OpaquePointer?] = dictionary.sorted { $0.key < $1.key }.map { key, value in
            g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(variant(of: value)))
        }
        return entries.withUnsafeMutableBufferPointer { g_variant_new_array(entryType, $0.baseAddress, gsize($0.count)) }
    }

    private static func variant(of value: Value) -> OpaquePointer {
        switch value {
        case .string(let string): g_variant_new_string(string)
        case .bool(let bool): g_variant_new_boolean(bool ? 1 : 0)
        case .int64(let number): g_variant_new_int64(gint64(number))
        }
    }

    /// The entries of an `a{sv}`; a value of another type than `s`, `b` or `x` is `nil`, so that the
    /// caller can say which key is wrong. `nil` when `variant` is not an `a{sv}`.
    static func dictionary(of variant: OpaquePointer) -> [String: Value?]? {
        guard GVariantValues.hasType(variant, "a{sv}") else { return nil }
        var dictionary: [String: Value?] = [:]
        for index in 0..<g_variant_n_children(variant) {
            let entry = g_variant_get_child_value(variant, index)!
            defer { g_variant_unref(entry) }
            let key = GVariantValues.string(at: 0, of: entry)
            let boxed = g_variant_get_child_value(entry, 1)!
            defer { g_variant_unref(boxed) }
            let value = g_variant_get_variant(boxed)!
            defer { g_variant_unref(value) }
            dictionary[key] = if GVariantValues.hasType(value, "s") {
                .string(String(cString: g_variant_get_string(value, nil)))
            } else if GVariantValues.hasType(value, "b") {
                .bool(g_variant_get_boolean(value) != 0)
            } else if GVariantValues.hasType(value, "x") {
                .int64(Int64(g_variant_get_int64(value)))
            } else {
                Value?.none
            }
        }
        return dictionary
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
