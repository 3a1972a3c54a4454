/// Which addresses the desktop sign-in's own requests (an OpenID Connect provider's discovery document and token
/// endpoint) may connect to.
package enum ReachableAddresses: Sendable {
    /// Any: the host the app or the user named, on this machine or a private network too.
    case any
    /// Public unicast addresses only, checked at the address each connection is made to (so that a name resolved
    /// again to another address cannot pass), with no proxy: never an address of this machine's own interfaces, nor
    /// one in a special-purpose block that is not globally reachable (RFC 6890: loopback, private, link-local,
    /// documentation, benchmarking, …), nor an IPv6 form (mapped, NAT64, 6to4) of such an IPv4 address. What the
    /// broker uses for hosts its callers name, unless it runs against the emulator.
    case publicOnly
}
