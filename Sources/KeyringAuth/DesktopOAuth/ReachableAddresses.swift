/// Which addresses the desktop sign-in's own requests (an OpenID Connect provider's discovery document and token
/// endpoint) may connect to.
package enum ReachableAddresses: Sendable {
    /// Any: the host the app or the user named, on this machine or a private network too.
    case any
    /// Public unicast addresses only, checked at the address each connection is made to (so that a name resolved
    /// again to another address cannot pass), with no proxy: what the broker uses for hosts its callers name,
    /// unless it runs against the emulator.
    case publicOnly
}
