import Foundation
import SystemSupport

/// The small pages the browser is left on.
enum RedirectPage {
    static func page(title: String, text: String) -> String {
        """
        <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
        <style>body{font-family:system-ui,sans-serif;max-width:32em;margin:4em auto;padding:0 1em;color:#222}</style></head>
        <body><h1>\(title)</h1><p>\(text)</p></body></html>
        """
    }

    static let signedIn = page(title: "Sign-in finished", text: "You can close this tab and return to the app.")

    static func failed(_ reason: String, title: String = "Sign-in failed") -> String {
        page(title: title, text: escape(reason) + " You can close this tab and return to the app.")
    }

    static func refused(_ reason: String) -> String { page(title: "Not answered", text: escape(reason)) }

    static func escape(_ text: String) -> String { HTML.escaped(text) }
}
