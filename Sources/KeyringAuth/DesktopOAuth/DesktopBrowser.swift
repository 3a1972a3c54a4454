import Foundation
import SecretKeychain

#if canImport(Glibc)
import Glibc
#endif

/// How ``DesktopOAuthFlow`` shows the provider's sign-in page: the user's own browser, never a web view
/// inside the app (Google refuses embedded browsers, and the user's browser already holds their session).
public struct DesktopBrowser: Sendable {
    /// Opens the URL; returns `nil` when it was handed to a browser, else why not.
    let open: @Sendable (URL) async -> String?

    /// Shows the page with `open`, which returns `nil` when it handed the URL on, else why not (the flow
    /// then still waits: the user may open the URL it announced).
    public static func custom(_ open: @escaping @Sendable (URL) async -> String?) -> DesktopBrowser {
        DesktopBrowser(open: open)
    }

    /// The user's default browser, through the desktop portal's OpenURI where the session has one (GNOME,
    /// KDE, and every Flatpak or Snap sandbox), else `xdg-open`. The portal gets the URL over the session
    /// bus; `xdg-open` gets it as an argument, which other users' processes can read in `/proc/PID/cmdline`
    /// while it runs (the URL carries the flow's `state` and PKCE challenge, not its verifier).
    public static let system = DesktopBrowser { url in
        // D-Bus and posix_spawn block: on a thread of their own, never Swift's cooperative pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            Thread {
                if OpenURIPortal.open(url.absoluteString) == nil { return continuation.resume(returning: nil) }
                continuation.resume(returning: spawnDetached("xdg-open", [url.absoluteString]))
            }.start()
        }
    }

    /// No browser: the app shows the announced URL and the user opens it in a browser of this machine (the redirect
    /// comes back to this machine's 127.0.0.1).
    public static let none = DesktopBrowser { _ in "no browser is opened (DesktopBrowser.none)" }

    /// Starts `program` found on `PATH`, its output discarded, and reaps it on a thread of its own without
    /// waiting (`xdg-open` may not return until the browser exits). Returns why it could not start, or `nil`.
    static func spawnDetached(_ program: String, _ arguments: [String]) -> String? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
            posix_spawnp(&pid, program, &actions, nil, argvBuffer.baseAddress!, environ)
        }
        guard status == 0 else { return "\(program) could not be started (\(String(cString: strerror(status))))" }
        let child = pid
        Thread {
            var exitStatus: Int32 = 0
            while waitpid(child, &exitStatus, 0) == -1 && errno == EINTR {}
        }.start()
        return nil
    }
}
