#!/usr/bin/env python3
"""The stand-in reCAPTCHA's scripts in a real browser: Debian's chromium, headless, driven through chromedriver.

Usage: stand_in_recaptcha.py EMULATOR     (the keyring-auth-emulator executable)

Starts the emulator with `--recaptcha AUDIT`, serves a page from another origin (as a client's verification page on
loopback) that loads `/emulator/recaptcha/api.js?onload=…&render=explicit` and `enterprise.js?render=KEY` from the
emulator, then, as a person and a page would: renders the v2 widget, clicks its "I'm not a robot" button, runs
Enterprise's `execute` for an action, and hands both tokens to `accounts:sendVerificationCode`, which takes each
once. Prints `ok` and exits 0; a failed check exits 1 with its traceback. Only the standard library is used; the
browser is Tests/Browser/chromium_browser.py's (sandboxed, loopback only, every wait bounded, its processes ended).
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Browser"))
import chromium_browser  # noqa: E402 (a sibling folder's module)

SITE_KEY = "emulator-recaptcha-v2-site-key"
ENTERPRISE_KEY = "emulator-recaptcha-enterprise-key"


def request(method: str, url: str, body: object = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def started(command: list[str], ready: str) -> tuple[subprocess.Popen, str]:
    """Runs `command` until it prints a line containing `ready`: the process and that line."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        if ready in line:
            return process, line.strip()
    raise RuntimeError(f"{command[0]} ended before it was ready")


def page(emulator: str) -> bytes:
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>stand-in</title></head><body>
<div id="box"></div>
<script>
  window.loaded = new Promise((resolve) => {{ window.onRecaptchaLoaded = resolve; }});
  window.solved = new Promise((resolve) => {{ window.onSolved = resolve; }});
</script>
<script src="http://{emulator}/emulator/recaptcha/api.js?onload=onRecaptchaLoaded&render=explicit&hl=en"></script>
<script src="http://{emulator}/emulator/recaptcha/enterprise.js?render={ENTERPRISE_KEY}"></script>
</body></html>""".encode()


def serve(body: bytes) -> tuple[http.server.ThreadingHTTPServer, int]:
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def check(binary: str) -> None:
    emulator, line = started([binary, "--port", "0", "--project-id", "demo-browser", "--recaptcha", "AUDIT"],
                             "export FIREBASE_AUTH_EMULATOR_HOST=")
    address = line.split("=", 1)[1]
    server, page_port = serve(page(address))
    overall = chromium_browser.Deadline(150)
    try:
        with chromium_browser.Chromium(overall) as session:
            browse(session, overall, address, page_port)
    finally:
        server.shutdown()
        emulator.terminate()
        emulator.wait()


def browse(session: chromium_browser.Session, overall: chromium_browser.Deadline, address: str, page_port: int) -> None:
    def run(script: str) -> object:
        return session.call("POST", "/execute/async", {"script": script, "args": []})

    # The page is on another origin than the emulator, as a client's loopback page is.
    session.call("POST", "/url", {"url": f"http://localhost:{page_port}/"})
    label = run(f"""const done = arguments[arguments.length - 1];
        loaded.then(() => {{
          window.widget = grecaptcha.render("box", {{sitekey: "{SITE_KEY}", callback: (token) => onSolved(token)}});
          done(document.getElementById("recaptcha-anchor").textContent);
        }});""")
    assert label == "I'm not a robot", label
    session.click("#recaptcha-anchor", chromium_browser.Deadline(60, overall))
    v2_token, response = run("""const done = arguments[arguments.length - 1];
        solved.then((token) => done([token, grecaptcha.getResponse(widget)]));""")
    assert isinstance(v2_token, str) and len(v2_token) > 20 and response == v2_token, (v2_token, response)

    enterprise_token = run(f"""const done = arguments[arguments.length - 1];
        grecaptcha.enterprise.ready(() => grecaptcha.enterprise.execute("{ENTERPRISE_KEY}",
          {{action: "sendVerificationCode"}}).then(done, (error) => done("failed: " + error)));""")
    assert isinstance(enterprise_token, str) and not enterprise_token.startswith("failed"), enterprise_token
    refused = run("""const done = arguments[arguments.length - 1];
        grecaptcha.enterprise.execute("someone-elses-key", {action: "sendVerificationCode"})
          .then(() => done("minted"), () => done("refused"));""")
    assert refused == "refused", refused

    # Each token passes once, as Identity Platform checks it in AUDIT.
    send = f"http://{address}/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k"
    enterprise = {"phoneNumber": "+15555550100", "clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_ENTERPRISE"}
    status, reply = request("POST", send, {**enterprise, "captchaResponse": enterprise_token})
    assert status == 200 and "sessionInfo" in reply, reply
    status, reply = request("POST", send, {**enterprise, "captchaResponse": enterprise_token})
    assert status == 400 and reply["error"]["message"] == "INVALID_APP_CREDENTIAL", reply
    status, reply = request("POST", send, {**enterprise, "captchaResponse": "NO_RECAPTCHA", "recaptchaToken": v2_token})
    assert status == 200 and "sessionInfo" in reply, reply


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    check(sys.argv[1])
    print("ok")
