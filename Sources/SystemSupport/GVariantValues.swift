internal import CGLib
import FoundationEssentials

/// Reading and making the `GVariant` values the package's D-Bus calls carry (a `GVariant *` is an `OpaquePointer` in
/// every module). Each function frees what it allocates; one that returns a `GVariant` returns it floating.
package enum GVariantValues {
    /// The string (`s` or `o`) child `index` of a tuple.
    package static func string(at index: Int, of tuple: OpaquePointer) -> String {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }

    /// The boolean child `index` of a tuple.
    package static func bool(at index: Int, of tuple: OpaquePointer) -> Bool {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return g_variant_get_boolean(child) != 0
    }

    /// The `x` child `index` of a tuple.
    package static func int64(at index: Int, of tuple: OpaquePointer) -> Int64 {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return Int64(g_variant_get_int64(child))
    }

    /// The `u` child `index` of a tuple.
    package static func uint32(at index: Int, of tuple: OpaquePointer) -> UInt32 {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return g_variant_get_uint32(child)
    }

    /// The bytes of the `ay` child `index` of a tuple.
    package static func bytes(at index: Int, of tuple: OpaquePointer) -> Data {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        var count: gsize = 0
        guard let pointer = g_variant_get_fixed_array(child, &count, 1), count > 0 else { return Data() }
        return Data(bytes: pointer, count: Int(count))
    }

    /// An `ay` of `data` (copied).
    package static func bytes(_ data: Data) -> OpaquePointer {
        let type = g_variant_type_new("y")
        defer { g_variant_type_free(type) }
        return data.withUnsafeBytes { g_variant_new_fixed_array(type, $0.baseAddress, gsize($0.count), 1) }
    }

    /// A tuple of `children` (each floating, consumed).
    package static func tuple(_ children: [OpaquePointer?]) -> OpaquePointer {
        var children = children
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    /// An array of the type written as `elementType` of `elements` (each floating, consumed).
    package static func array(of elementType: String, _ elements: [OpaquePointer?]) -> OpaquePointer {
        let type = g_variant_type_new(elementType)
        defer { g_variant_type_free(type) }
        var elements = elements
        return elements.withUnsafeMutableBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }
    }

    /// The value in the reply of `org.freedesktop.DBus.Properties.Get` (a `(v)`), which the caller unrefs, or `nil`
    /// when it is not of the type written as `typeString`.
    package static func property(in reply: OpaquePointer, ofType typeString: String) -> OpaquePointer? {
        let boxed = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(boxed) }
        let value = g_variant_get_variant(boxed)!
        guard hasType(value, typeString) else {
            g_variant_unref(value)
            return nil
        }
        return value
    }

    /// Whether `variant` is of the type written as `typeString`, for example `(ssss)`.
    package static func hasType(_ variant: OpaquePointer, _ typeString: String) -> Bool {
        let type = g_variant_type_new(typeString)
        defer { g_variant_type_free(type) }
        return g_variant_is_of_type(variant, type) != 0
    }
}
