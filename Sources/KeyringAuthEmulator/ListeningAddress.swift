import NIOCore

/// The address the emulator listens on, resolved once so that the loopback check and the bind see
/// the same address (a name could resolve differently the second time).
struct ListeningAddress {
    /// The host as given, without the brackets of `[::1]`.
    let host: String
    let socketAddress: SocketAddress

    /// Resolves `host` (a name, an IPv4 address, or an IPv6 address with or without brackets).
    ///
    /// - Throws: ``AuthEmulatorError/hostDoesNotResolve(host:)``.
    static func resolve(_ host: String, port: Int) throws(AuthEmulatorError) -> ListeningAddress {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard !bare.isEmpty else { throw .hostDoesNotResolve(host: host) }
        do {
            return ListeningAddress(host: bare, socketAddress: try SocketAddress.makeAddressResolvingHost(bare, port: port))
        } catch {
            throw .hostDoesNotResolve(host: host)
        }
    }

    /// Whether only this machine can reach the address: 127.0.0.0/8, `::1`, or `::ffff:127.0.0.0/104`.
    var isLoopback: Bool {
        switch socketAddress {
        case .v4(let address):
            return UInt32(bigEndian: address.address.sin_addr.s_addr) >> 24 == 127
        case .v6(let address):
            return withUnsafeBytes(of: address.address.sin6_addr) { bytes in
                let loopback = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
                let mappedLoopback = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
                return loopback || mappedLoopback
            }
        case .unixDomainSocket:
            return false
        }
    }

    /// The numeric address, for messages.
    var numeric: String { socketAddress.ipAddress ?? host }
}
