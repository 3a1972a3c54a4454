#!/usr/bin/env python3
"""The stand-in reCAPTCHA's scripts in a real browser: Debian's chromium, headless, driven through chromedriver.

Usage: stand_in_recaptcha.py EMULATOR     (the keyring-auth-emulator executable)

Starts the emulator with `--recaptcha AUDIT`, serves a page from another origin (as a client's verification page on
loopback) that loads `/emulator/recaptcha/api.js?onload=…&render=explicit` and `enterprise.js?render=KEY` from the
emulator, then, as a person and a page would: renders the v2 widget, clicks its "I'm not a robot" button, runs
Enterprise's `execute` for an action, and hands both tokens to `accounts:sendVerificationCode`, which takes each
once. Prints `ok` and exits 0; a failed check exits 1 with its traceback. Only the standard library is used.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request

SITE_KEY = "emulator-recaptcha-v2-site-key"
ENTERPRISE_KEY = "emulator-recaptcha-enterprise-key"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
    driver_port = free_port()
    driver, _ = started(["chromedriver", f"--port={driver_port}"], "started successfully")
    base = f"http://127.0.0.1:{driver_port}"
    profile = tempfile.mkdtemp(prefix="stand-in-recaptcha-")
    try:
        status, created = request("POST", base + "/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": {
                "binary": os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-proxy-server",
                         f"--user-data-dir={profile}"]}}}})
        assert status == 200, created
        session = base + "/session/" + created["value"]["sessionId"]

        def run(script: str) -> object:
            status, reply = request("POST", session + "/execute/async", {"script": script, "args": []})
            assert status == 200, reply
            return reply["value"]

        # The page is on another origin than the emulator, as a client's loopback page is.
        assert request("POST", session + "/url", {"url": f"http://localhost:{page_port}/"})[0] == 200
        label = run(f"""const done = arguments[arguments.length - 1];
            loaded.then(() => {{
              window.widget = grecaptcha.render("box", {{sitekey: "{SITE_KEY}", callback: (token) => onSolved(token)}});
              done(document.getElementById("recaptcha-anchor").textContent);
            }});""")
        assert label == "I'm not a robot", label
        status, found = request("POST", session + "/element", {"using": "css selector", "value": "#recaptcha-anchor"})
        assert status == 200, found
        assert request("POST", session + f"/element/{found['value'][ELEMENT]}/click", {})[0] == 200
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
        request("DELETE", session)
    finally:
        driver.terminate()
        driver.wait()
        server.shutdown()
        emulator.terminate()
        emulator.wait()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    check(sys.argv[1])
    print("ok")
