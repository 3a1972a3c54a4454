import Foundation
import SecretKeychain

/// Which access groups a caller may use, as Apple's team-prefixed groups and Flathub's verified app
/// IDs make it:
///
/// - A Flatpak app may use a group whose reverse-DNS name lies under its app ID's domain (the app ID
///   but its last element), once an Apple-style first element of the group is set aside: `TEAMID.`
///   (capitals and digits) or `group.`. `com.example.Notes` may use `TEAMID.com.example.shared` and
///   `group.com.example.shared`; `org.evil.App` may not. An app ID gives no domain, and so no group, when
///   its domain starts with such an element (`group.com.example.Evil`, `TEAMID.com.example.Evil`), is a
///   code host's own (`io.github.Evil`, `com.gitlab.Evil`: Flathub asks one more element, the user's), or
///   is a public suffix (`uk.co.Evil`, `io.github.io`…: the Public Suffix List, libpsl's built-in copy). Its
///   private scope is its own, keyed by its app ID.
/// - A host process may use any group: it can read the keyring directly anyway.
/// - A Snap is refused unless a policy file grants it groups (``SnapGrants``).
struct AccessPolicy: Sendable {
    var snapGrants: SnapGrants

    /// Whether `caller` may use `group` (`nil`: its own private scope), or why not.
    func check(_ caller: Caller, group: AccessGroup?) throws(BrokerError) {
        switch caller {
        case .host:
            return
        case .flatpak(let appID):
            guard let group else { return }
            guard let domain = AppID.groupDomain(of: appID) else {
                throw BrokerError(.accessDenied, "\(caller) may not use the access group \(group): its app ID gives no domain of its "
                    + "own (its domain starts with group. or a team ID, is a code host's own such as io.github without the user's "
                    + "element, or is a public suffix such as co.uk), so it may use its private scope only.")
            }
            guard Self.group(group.rawValue, liesUnder: domain) else {
                throw BrokerError(.accessDenied, "\(caller) may not use the access group \(group): a sandboxed app may use only "
                    + "groups under its own app ID's domain (\(domain.joined(separator: ".")).…, with an optional "
                    + "TEAMID. or group. prefix).")
            }
        case .snap(let name):
            guard snapGrants.allows(snap: name, group: group) else {
                throw BrokerError(.accessDenied, "\(caller) may not use \(group.map { "the access group \($0)" } ?? "the broker"): snaps "
                    + "are refused unless \(SnapGrants.userFileDescription) or \(SnapGrants.systemFile) grants them the group.")
            }
        }
    }

    /// Whether the reverse-DNS name of `group`, without an Apple-style `TEAMID.` or `group.` first element,
    /// starts with every element of `domain` and has at least one more.
    static func group(_ group: String, liesUnder domain: [Substring]) -> Bool {
        guard domain.count >= 2 else { return false }
        var elements = group.split(separator: ".", omittingEmptySubsequences: false)[...]
        if let first = elements.first, AppID.isApplePrefix(first) { elements = elements.dropFirst() }
        return elements.count > domain.count && elements.prefix(domain.count).elementsEqual(domain)
    }
}

/// Groups granted to snaps, one grant per line: `snap NAME GROUP` (`*` for any group, `-` for the
/// snap's private scope); `#` starts a comment. Read from the user's file
/// (`$XDG_CONFIG_HOME/keyring-auth/broker-snaps`) and the system's (`/etc/keyring-auth/broker-snaps`).
struct SnapGrants: Sendable {
    static let systemFile = "/etc/keyring-auth/broker-snaps"
    static let userFileDescription = "$XDG_CONFIG_HOME/keyring-auth/broker-snaps"
    /// The largest policy file read.
    static let maximumSize = 64 * 1024

    private var grants: [String: Set<String>] = [:]

    init(text: String) {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count == 3, words[0] == "snap" else { continue }
            grants[String(words[1]), default: []].insert(String(words[2]))
        }
    }

    /// The grants of the user's and the system's files (a missing or unreadable file grants nothing).
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> SnapGrants {
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        let text = [configHome + "/keyring-auth/broker-snaps", systemFile].compactMap { path -> String? in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                (attributes[.size] as? Int ?? .max) <= maximumSize
            else { return nil }
            return try? String(contentsOfFile: path, encoding: .utf8)
        }.joined(separator: "\n")
        return SnapGrants(text: text)
    }

    func allows(snap name: String, group: AccessGroup?) -> Bool {
        guard let granted = grants[name] else { return false }
        return granted.contains("*") || granted.contains(group?.rawValue ?? "-")
    }
}
