import ArgumentParser
import CommandLineSupport
import Foundation
import KeyringAuth

/// How a page of a flow in the browser is shown and waited for: a provider's sign-in, or the phone verification page.
struct BrowserPageOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "For a page in the browser (--google, --oidc, --provider, GitHub's web flow, --phone): the loopback port it comes back to (default: a free one).",
        valueName: "port"))
    var port: UInt16 = 0

    @Option(help: ArgumentHelp("For a page in the browser: how long to wait for the person, in seconds.", valueName: "seconds"))
    var browserTimeout: Int = 300

    @Flag(help: "For a page in the browser: only print its URL to open; do not start a browser.")
    var noBrowser = false

    func validate() throws {
        guard (1...86_400).contains(browserTimeout) else { throw ValidationError("--browser-timeout takes 1 to 86400 seconds.") }
    }
}

/// Prints `line` then the URL on standard error, the URL on a line of its own, to copy whole.
func announceURL(_ url: URL, _ line: String) {
    printError(line)
    FileHandle.standardError.write(Data((url.absoluteString.escapedForTerminal + "\n").utf8))
}
