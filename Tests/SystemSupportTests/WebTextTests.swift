import SystemSupport
import Testing

/// The one HTML escaper and list of reserved OAuth parameters the desktop flow and the emulator share.
@Suite struct WebTextTests {
    @Test func htmlTextAndAttributeValuesAreEscaped() {
        #expect(HTML.escaped(#"<a href="x">Tom & 'Jerry'</a>"#) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
        #expect(HTML.escaped("plain é 🙂") == "plain é 🙂")
        #expect(HTML.escaped("&amp;") == "&amp;amp;", "escaped once more, never taken as escaped already")
    }

    @Test func theReservedParametersAreOAuthsOwn() {
        #expect(OAuthParameters.reserved == ["client_id", "response_type", "scope", "redirect_uri", "state"])
    }
}
