/// The scripts the stand-in reCAPTCHA serves in place of `https://www.google.com/recaptcha/api.js` (v2) and
/// `…/enterprise.js`, with the parts of Google's API that Firebase's SDKs and a verification page use. Each finds the
/// emulator from its own address (`document.currentScript.src`) and mints its tokens with
/// `POST /emulator/recaptcha/token`.
enum StandInRecaptchaScripts {
    /// reCAPTCHA v2 (`api.js?onload=FN&render=explicit&hl=…`): `grecaptcha.render(container, {sitekey, callback,
    /// 'expired-callback', 'error-callback'})` draws a button "I'm not a robot" (`#recaptcha-anchor`) whose click mints
    /// a token and calls `callback(token)`; `getResponse(id)`, `reset(id)`, `execute(id)` (an invisible widget's
    /// click), `ready(fn)`; then `window[onload]()`.
    static let v2 = #"""
        // Stand-in for reCAPTCHA v2, served by the KeyringAuth Auth emulator (a test option, never Google's).
        (function () {
          "use strict";
          const script = new URL(document.currentScript.src);
          const tokenURL = script.origin + "/emulator/recaptcha/token";
          const onload = script.searchParams.get("onload");
          const widgets = [];

          // A callback given as a function or as the name of a global one, as reCAPTCHA takes both.
          function call(callback, argument) {
            const target = typeof callback === "string" ? window[callback] : callback;
            if (typeof target === "function") target(argument);
          }

          function widget(id) {
            const found = widgets[id === undefined ? 0 : id];
            if (!found) throw new Error("Invalid reCAPTCHA client id: " + id);
            return found;
          }

          // Asks the emulator for a token for the widget; it lasts two minutes, then 'expired-callback' is called.
          function solve(id) {
            const w = widget(id);
            w.button.disabled = true;
            fetch(tokenURL, {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ version: "v2", siteKey: w.params.sitekey }),
            })
              .then((answer) => (answer.ok ? answer.json() : Promise.reject(new Error("token: HTTP " + answer.status))))
              .then((body) => {
                w.response = body.token;
                w.button.textContent = "Verified";
                clearTimeout(w.timer);
                w.timer = setTimeout(() => {
                  reset(id);
                  call(w.params["expired-callback"]);
                }, 120000);
                call(w.params.callback, body.token);
              })
              .catch(() => {
                w.button.disabled = false;
                call(w.params["error-callback"]);
              });
          }

          function reset(id) {
            const w = widget(id);
            clearTimeout(w.timer);
            w.response = "";
            w.button.disabled = false;
            w.button.textContent = "I'm not a robot";
          }

          const grecaptcha = (window.grecaptcha = window.grecaptcha || {});
          grecaptcha.render = function (container, params) {
            const element = typeof container === "string" ? document.getElementById(container) : container;
            if (!element) throw new Error("reCAPTCHA placeholder element must be an element or id");
            const id = widgets.length;
            const button = document.createElement("button");
            button.type = "button";
            button.id = id === 0 ? "recaptcha-anchor" : "recaptcha-anchor-" + id;
            button.textContent = "I'm not a robot";
            button.addEventListener("click", () => solve(id));
            element.appendChild(button);
            widgets.push({ params: params || {}, button: button, response: "", timer: null });
            return id;
          };
          grecaptcha.getResponse = (id) => widget(id).response;
          grecaptcha.reset = reset;
          grecaptcha.execute = (id) => solve(id);
          grecaptcha.ready = (callback) => setTimeout(callback, 0);

          if (onload) setTimeout(() => call(onload), 0);
        })();

        """#

    /// reCAPTCHA Enterprise (`enterprise.js?render=KEY`): `grecaptcha.enterprise.ready(fn)` and
    /// `grecaptcha.enterprise.execute(siteKey, {action})`, a promise of a token minted for that action; no click.
    static let enterprise = #"""
        // Stand-in for reCAPTCHA Enterprise, served by the KeyringAuth Auth emulator (a test option, never Google's).
        (function () {
          "use strict";
          const tokenURL = new URL(document.currentScript.src).origin + "/emulator/recaptcha/token";
          const grecaptcha = (window.grecaptcha = window.grecaptcha || {});
          grecaptcha.enterprise = {
            ready: (callback) => setTimeout(callback, 0),
            execute: (siteKey, options) =>
              fetch(tokenURL, {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: JSON.stringify({ version: "enterprise", siteKey: siteKey, action: (options || {}).action }),
              })
                .then((answer) => (answer.ok ? answer.json() : Promise.reject(new Error("token: HTTP " + answer.status))))
                .then((body) => body.token),
          };
        })();

        """#
}
