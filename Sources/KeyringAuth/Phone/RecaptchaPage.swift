import Foundation
import SystemSupport

/// The page the person's browser shows to verify the app before an SMS code is sent: reCAPTCHA v2's checkbox, reCAPTCHA
/// Enterprise's check (no click), or both, as the project's set-up asks. It carries no secret: the flow's secret is in
/// the address's fragment (`#…`), which the browser never sends, and the page hands it back with the tokens to
/// `/verified` on the same `Host`. It tells the listener when the person cancels or closes the tab.
struct RecaptchaPage: Sendable {
    /// Where reCAPTCHA's scripts come from, without a trailing slash: `https://www.google.com/recaptcha`, or the emulator's
    /// stand-in (`http://127.0.0.1:9099/emulator/recaptcha`).
    var scriptBase: String
    /// The Enterprise site key and action, when the project checks reCAPTCHA Enterprise for phone numbers.
    var enterprise: (siteKey: String, action: String)?
    /// The v2 site key: the checkbox the person ticks.
    var v2SiteKey: String?
    /// Whether the checkbox is shown even when the Enterprise check passed (AUDIT: a v2 token to retry with).
    var alwaysV2: Bool
    /// The number the code goes to, as shown to the person (a second factor's is masked).
    var phoneNumber: String
    /// The language for reCAPTCHA's widget (`hl`), when the app set one.
    var languageCode: String?

    /// The page and its content security policy; `nonce` lets the page's own script run and nothing else inline.
    func served(nonce: String) -> LoopbackRedirectListener.ServedPage {
        let origin = Self.origin(of: scriptBase)
        let scripts = origin == "https://www.google.com" ? "https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/" : "\(scriptBase)/"
        let policy = "default-src 'none'; script-src 'nonce-\(nonce)' \(scripts); "
            + "frame-src https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/ \(origin); "
            + "img-src https://www.gstatic.com/recaptcha/ \(origin); style-src 'unsafe-inline'; connect-src 'self' \(origin); "
            + "base-uri 'none'; form-action 'none'"
        return .init(html: html(nonce: nonce), contentSecurityPolicy: policy)
    }

    /// `scheme://host[:port]` of a URL.
    static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return "'none'" }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (components.port.map { ":\($0)" } ?? "")
    }

    private func html(nonce: String) -> String {
        var config: [String: Any] = ["scriptBase": scriptBase, "alwaysV2": alwaysV2]
        if let enterprise { (config["enterpriseKey"], config["action"]) = (enterprise.siteKey, enterprise.action) }
        config["v2SiteKey"] = v2SiteKey
        config["hl"] = languageCode
        // Inside <script type="application/json">: no "<" may close the element early.
        let json = String(decoding: try! JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]), as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c")
        let number = HTML.escaped(phoneNumber)
        return """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Verify to send the code</title>
            <meta name="referrer" content="no-referrer">
            <style>body{font-family:system-ui,sans-serif;max-width:32em;margin:4em auto;padding:0 1em;color:#222}
            #recaptcha{margin:1.5em 0}button{font:inherit}</style></head>
            <body><h1>Verify to send the code</h1>
            <p id="status">To have a verification code sent by SMS to <strong>\(number)</strong>, confirm that you are not a robot.</p>
            <div id="recaptcha"></div>
            <p><button id="cancel" type="button">Cancel</button></p>
            <script type="application/json" id="config">\(json)</script>
            <script nonce="\(nonce)">
            "use strict";
            (function () {
              const config = JSON.parse(document.getElementById("config").textContent);
              const secret = location.hash.slice(1);
              const status = document.getElementById("status");
              let done = false, enterpriseToken = null, v2Token = null, v2Shown = false;
              function answer(fields) {
                if (done) return;
                done = true;
                location.replace("/verified?" + new URLSearchParams(Object.assign({state: secret}, fields)));
              }
              function finishIfReady() {
                const needV2 = config.v2SiteKey && (!config.enterpriseKey || config.alwaysV2 || enterpriseToken === "NO_RECAPTCHA");
                if (config.enterpriseKey && enterpriseToken === null) return;
                if (needV2 && v2Token === null) { showCheckbox(); return; }
                if (!needV2 && enterpriseToken === "NO_RECAPTCHA") {
                  answer({outcome: "error", message: "reCAPTCHA Enterprise could not check this browser."});
                  return;
                }
                const fields = {outcome: "verified"};
                if (enterpriseToken !== null) fields.captchaResponse = enterpriseToken;
                if (v2Token !== null) fields.recaptchaToken = v2Token;
                answer(fields);
              }
              function load(src, failure, loaded) {
                const script = document.createElement("script");
                script.src = src;
                script.nonce = "\(nonce)";
                script.onerror = () => answer({outcome: "error", message: failure});
                if (loaded) script.onload = loaded;
                document.head.appendChild(script);
              }
              function showCheckbox() {
                if (v2Shown) return;
                v2Shown = true;
                window.keyringAuthRecaptchaLoaded = () => {
                  grecaptcha.render("recaptcha", {
                    sitekey: config.v2SiteKey,
                    callback: (token) => { v2Token = token; finishIfReady(); },
                    "expired-callback": () => { v2Token = null; },
                  });
                };
                const query = new URLSearchParams({onload: "keyringAuthRecaptchaLoaded", render: "explicit"});
                if (config.hl) query.set("hl", config.hl);
                load(config.scriptBase + "/api.js?" + query, "reCAPTCHA could not be loaded; check the network and try again.");
              }
              document.getElementById("cancel").addEventListener("click", () => answer({outcome: "cancelled"}));
              window.addEventListener("pagehide", () => {
                if (done) return;
                done = true;
                fetch("/verified?" + new URLSearchParams({state: secret, outcome: "closed"}), {keepalive: true});
              });
              if (!/^[A-Za-z0-9_-]{16,128}$/.test(secret)) {
                status.textContent = "This page was opened without its address's ending; open the address the app gave, whole.";
                done = true;
                return;
              }
              if (config.enterpriseKey) {
                load(config.scriptBase + "/enterprise.js?render=" + encodeURIComponent(config.enterpriseKey),
                     "reCAPTCHA Enterprise could not be loaded; check the network and try again.", () => {
                  grecaptcha.enterprise.ready(() => {
                    grecaptcha.enterprise.execute(config.enterpriseKey, {action: config.action})
                      .then((token) => { enterpriseToken = token; finishIfReady(); },
                            () => { enterpriseToken = "NO_RECAPTCHA"; finishIfReady(); });
                  });
                });
                if (config.alwaysV2) showCheckbox();
              } else {
                showCheckbox();
              }
            })();
            </script></body></html>
            """
    }
}
