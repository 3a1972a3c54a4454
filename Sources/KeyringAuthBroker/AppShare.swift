/// How much of one resource each app may hold at once (steps, watches, follows, calls in progress): at most
/// ``perApp``, and of the broker's ``total``, the last ``reserved`` only for apps that hold none yet, so that no app,
/// however many connections it opens, keeps another from its first.
///
/// An app is a sandboxed caller's verified identity, whatever its connections, or a host process
/// (``CallerIdentity/app``).
struct AppShare: Sendable {
    let perApp: Int
    let total: Int
    let reserved: Int

    /// Whether an app holding `held` may take one more while `inUse` are held in all.
    func admits(held: Int, inUse: Int) -> Bool {
        guard held < perApp, inUse < total else { return false }
        return held == 0 || inUse < total - reserved
    }
}
