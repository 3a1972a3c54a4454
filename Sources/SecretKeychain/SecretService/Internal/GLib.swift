import CSecret
import FoundationEssentials

/// Conversions between Swift values and the GLib containers libsecret and GDBus take and return.
/// Each function frees what it allocates before returning, or hands ownership to the caller as
/// its name says.
enum GLib {
    /// A new `GHashTable` of `gchar * → gchar *` holding `attributes`. The caller unrefs it.
    static func makeAttributeTable(_ attributes: [String: String]) -> OpaquePointer {
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        for (name, value) in attributes {
            g_hash_table_insert(table, g_strdup(name), g_strdup(value))
        }
        return table
    }

    /// The strings of a `NULL`-terminated `gchar **`, which is then freed.
    static func takeStringArray(_ strv: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let strv else { return [] }
        defer { g_strfreev(strv) }
        var strings: [String] = []
        var index = 0
        while let string = strv[index] {
            strings.append(String(cString: string))
            index += 1
        }
        return strings
    }

    /// Calls `body` with a `NULL`-terminated `const gchar **` of `strings`, valid only during the call.
    static func withStringArray<Result, Failure: Error>(
        _ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<gchar>?>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let copies = strings.map { g_strdup($0) }
        defer { copies.forEach { g_free($0) } }
        var array: [UnsafePointer<gchar>?] = copies.map { UnsafePointer($0) }
        array.append(nil)
        return try array.withUnsafeMutableBufferPointer { buffer throws(Failure) in try body(buffer.baseAddress!) }
    }

    /// A new `GVariant` of type `a{ss}`, floating.
    static func makeStringDictionaryVariant(_ dictionary: [String: String]) -> OpaquePointer {
        let entryType = g_variant_type_new("{ss}")
        defer { g_variant_type_free(entryType) }
        var entries: [OpaquePointer?] = dictionary.sorted { $0.key < $1.key }.map { name, value in
            g_variant_new_dict_entry(g_variant_new_string(name), g_variant_new_string(value))
        }
        return entries.withUnsafeMutableBufferPointer { buffer in
            g_variant_new_array(entryType, buffer.baseAddress, gsize(buffer.count))
        }
    }

    /// The string in a `GVariant` of type `s` or `o`.
    static func string(of variant: OpaquePointer) -> String {
        String(cString: g_variant_get_string(variant, nil))
    }

    /// The entries of a `GVariant` of type `a{ss}`.
    static func stringDictionary(of variant: OpaquePointer) -> [String: String] {
        var dictionary: [String: String] = [:]
        for index in 0..<g_variant_n_children(variant) {
            let entry = g_variant_get_child_value(variant, index)!
            defer { g_variant_unref(entry) }
            let name = g_variant_get_child_value(entry, 0)!
            defer { g_variant_unref(name) }
            let value = g_variant_get_child_value(entry, 1)!
            defer { g_variant_unref(value) }
            dictionary[string(of: name)] = string(of: value)
        }
        return dictionary
    }

    /// The value named `name` in a `GVariant` of type `a{sv}`, or `nil`. The caller unrefs it.
    static func lookup(_ name: String, in dictionary: OpaquePointer) -> OpaquePointer? {
        g_variant_lookup_value(dictionary, name, nil)
    }

    /// The strings of a `GHashTable` of `gchar * → gchar *`, which is left as it is.
    static func stringDictionary(ofTable table: OpaquePointer) -> [String: String] {
        var dictionary: [String: String] = [:]
        var iterator = GHashTableIter()
        g_hash_table_iter_init(&iterator, table)
        var key: gpointer?
        var value: gpointer?
        while g_hash_table_iter_next(&iterator, &key, &value) != 0 {
            guard let key, let value else { continue }
            dictionary[String(cString: key.assumingMemoryBound(to: CChar.self))] = String(cString: value.assumingMemoryBound(to: CChar.self))
        }
        return dictionary
    }

}
