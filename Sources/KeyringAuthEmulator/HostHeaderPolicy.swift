/// Which `Host` headers the emulator answers. A web page can make the browser send requests to the emulator
/// by giving its own name the address 127.0.0.1 (DNS rebinding); those carry the page's name in `Host`, so
/// only loopback names and addresses are answered: `localhost`, 127.0.0.0/8, `::1`, and, when the emulator
/// was allowed to listen elsewhere (``AuthEmulator/Configuration/allowsNonLoopback``), the host it was given.
/// A request without `Host` (HTTP/1.0; no browser sends one) is answered.
struct HostHeaderPolicy: Sendable {
    /// The configured host, lowercased and without brackets, when it is not loopback and was allowed.
    let configuredHost: String?

    init(configuredHost: String?) {
        self.configuredHost = configuredHost.map { Self.hostName(of: $0) }
    }

    func accepts(_ header: String?) -> Bool {
        guard let header else { return true }
        let name = Self.hostName(of: header)
        return Self.isLoopback(name) || (configuredHost != nil && name == configuredHost)
    }

    /// `header`'s host: lowercased, without its port and without the brackets of an IPv6 address.
    static func hostName(of header: String) -> String {
        var text = Substring(header.lowercased())
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { text = text[..<colon] }
        return String(text)
    }

    /// `localhost`, an IPv4 address of 127.0.0.0/8, `::1` or `::ffff:127.x.x.x`.
    static func isLoopback(_ name: String) -> Bool {
        if name == "localhost" || name == "::1" { return true }
        let ipv4 = name.hasPrefix("::ffff:") ? String(name.dropFirst("::ffff:".count)) : name
        let octets = ipv4.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
