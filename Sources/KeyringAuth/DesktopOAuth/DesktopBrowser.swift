import Foundation
import SystemSupport

/// How ``DesktopOAuthFlow`` shows the provider's sign-in page: the user's own browser, never a web view
/// inside the app (Google refuses embedded browsers, and the user's browser already holds their session).
public struct DesktopBrowser: Sendable {
    private let opener: @Sendable (URL) async -> String?

    /// Opens `url`; answers `nil` when it was handed to a browser, else why not.
    public func open(_ url: URL) async -> String? { await opener(url) }

    /// Shows the page with `open`, which returns `nil` when it handed the URL on, else why not (the flow
    /// then still waits: the user may open the URL it announced).
    public static func custom(_ open: @escaping @Sendable (URL) async -> String?) -> DesktopBrowser {
        DesktopBrowser(opener: open)
    }

    /// The user's default browser, through the desktop portal's OpenURI where the session has one (GNOME,
    /// KDE, and every Flatpak or Snap sandbox), else `xdg-open`. The portal gets the URL over the session
    /// bus; `xdg-open` gets it as an argument, which other users' processes can read in `/proc/PID/cmdline`
    /// while it runs (the URL carries the flow's `state` and PKCE challenge, not its verifier).
    public static let system = DesktopBrowser { url in
        // D-Bus and posix_spawn block: on a thread of their own, never Swift's cooperative pool.
        do throws(OwnThreadFailure) {
            return try await OwnThread.run(name: "open-browser") {
                if OpenURIPortal.open(url.absoluteString) == nil { return nil }
                return Spawn.detached("xdg-open", [url.absoluteString])
            }
        } catch {
            return "the browser was not opened: \(error.explanation)"
        }
    }

    /// No browser: the app shows the announced URL and the user opens it in a browser of this machine (the redirect
    /// comes back to this machine's 127.0.0.1).
    public static let none = DesktopBrowser { _ in "no browser is opened (DesktopBrowser.none)" }
}
