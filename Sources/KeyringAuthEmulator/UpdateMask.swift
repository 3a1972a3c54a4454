/// The Admin API's `updateMask`: the comma-separated field paths a `PATCH` sets. No mask (or an empty one)
/// is a full update, where a setting left out goes back to its default.
struct UpdateMask {
    private let paths: Set<String>

    /// `nil` for a full update.
    init?(_ query: String?) {
        guard let query, !query.isEmpty else { return nil }
        paths = Set(query.split(separator: ",").map { String($0) })
    }

    /// Whether the mask names the setting at `path` (`mfaConfig.state`): itself or an object it is in
    /// (`mfaConfig`). A path into a setting that is not an object (`displayName.0`) names nothing.
    func names(_ path: String) -> Bool {
        paths.contains { $0 == path || path.hasPrefix($0 + ".") }
    }

    /// Whether the mask names the object at `path` or anything in it (`blockingFunctions.triggers` for
    /// `blockingFunctions`).
    func reaches(_ path: String) -> Bool {
        names(path) || paths.contains { $0.hasPrefix(path + ".") }
    }
}

extension UpdateMask? {
    /// Whether an update with this mask (`nil`: a full update) sets the setting at `path`.
    func sets(_ path: String) -> Bool { map { $0.names(path) } ?? true }

    /// Whether an update with this mask sets the object at `path` or anything in it.
    func reaches(_ path: String) -> Bool { map { $0.reaches(path) } ?? true }
}
