#!/usr/bin/env python3
"""A person's browser for the tests: Debian's chromium, headless, driven through chromedriver (W3C WebDriver).

    chromium_browser.py [--script FILE] [--result FILE] [--timeout SECONDS] URL

(FILEs also from $CHROMIUM_BROWSER_SCRIPT and $CHROMIUM_BROWSER_RESULT, for a link named `xdg-open` to this file.)

Opens URL, performs the scripted person's steps, and writes what the browser was left on to the result file as
JSON: {"ok", "error", "final": {"url", "title", "text"}, "pages": [...], "choices": [...], "seconds", "sandbox",
"timeline"} (and a line on standard error).
Installed as an `xdg-open` (the tests' RealBrowser writes such a shim), it is the browser a desktop sign-in opens.

The script is a JSON object {"steps": [...], "timeout": SECONDS}; each step is one of
    {"open": URL}                                   go to URL (its load waited for)
    {"click": CSS, "frame": CSS?}                   click the element, once it is shown (inside the iframe FRAME)
    {"type": CSS, "text": TEXT, "frame": CSS?}      type TEXT into the field
    {"wait_text": TEXT}                             until the page's visible text holds TEXT
    {"wait_url": TEXT}                              until the address holds TEXT
    {"capture": true}                               record the page now (in "pages")
    {"emulator_idp": {"email": E, "displayName": N?}}   at the bundled emulator's provider page: the listed account
                                                    of E, else a new one made with the page's form; then until the
                                                    browser has left the page
    {"emulator_idp": "decline"}                     at that page: "Decline"
Without a script, the emulator's page (if URL is one) is answered as ada@example.com.

Every wait has a deadline (the script's timeout, 60 s unless given; the whole run at most --timeout, 240 s) and
fails saying what it waited for and where the browser was. chromedriver and every process it started end with
this one, also on failure or SIGTERM: this process is their subreaper and kills what is left. As root, chromedriver
and chromium run as `nobody`, with chromium's sandbox (which chromium refuses to run as root; without user namespaces
it runs with --no-sandbox and says so in "sandbox"); the browser reaches localhost, 127.0.0.1 and [::1] only (every
other name and address is unresolved: --host-resolver-rules), a throwaway profile, no session bus. Standard library only.

As a module: `with Chromium(Deadline(SECONDS)) as session:` gives that browser's WebDriver session to a script of its
own (`session.call`, `click`, `type`, `page`, `element`), ended with its processes on leaving.
"""

import argparse
import ctypes
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

CHROMIUM = "/usr/lib/chromium/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
POLL = 0.1
# WebDriver errors that a later try of the same step may not meet (the page is still being built or replaced).
TRANSIENT = {"no such element", "stale element reference", "element not interactable", "element click intercepted",
             "no such frame", "javascript error"}


class Failure(Exception):
    pass


class Deadline:
    def __init__(self, seconds, overall=None):
        self.end = time.monotonic() + seconds
        if overall is not None:
            self.end = min(self.end, overall.end)

    def left(self):
        return self.end - time.monotonic()

    def passed(self):
        return self.left() <= 0


def wait_until(what, deadline, condition, describe=lambda: ""):
    """Polls `condition` until it gives a true value, which it returns; fails at the deadline saying `what`."""
    last = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except WebDriverError as error:
            if error.kind not in TRANSIENT:
                raise
            last = error
        if deadline.passed():
            where = describe()
            raise Failure(f"timed out waiting for {what}" + (f" (last: {last})" if last else "") + (f"; {where}" if where else ""))
        time.sleep(POLL)


class WebDriverError(Exception):
    def __init__(self, kind, message):
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class Session:
    """One W3C WebDriver session of chromedriver at `base`."""

    def __init__(self, base, deadline):
        self.base = base
        self.deadline = deadline
        self.id = None
        # No proxy from the environment: chromedriver is on loopback.
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def call(self, method, path, body=None, limit=None):
        left = self.deadline.left() if limit is None else min(limit, max(self.deadline.left(), 1))
        if left <= 0:
            raise Failure(f"the run's time limit passed before {method} {path}")
        url = self.base + (f"/session/{self.id}" if self.id and not path.startswith("/session") else "") + path
        data = json.dumps(body if body is not None else {}).encode() if method == "POST" else None
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with self.opener.open(request, timeout=left) as answer:
                reply = json.load(answer)
        except urllib.error.HTTPError as error:
            try:
                value = json.load(error).get("value", {})
            except ValueError:
                value = {}
            raise WebDriverError(value.get("error", f"HTTP {error.code}"), value.get("message", "").split("\n")[0]) from None
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            raise Failure(f"chromedriver did not answer {method} {path} (a limit of {left:.0f} s): {error}") from None
        return reply.get("value")

    def start(self, arguments, timeout):
        capabilities = {"browserName": "chrome", "pageLoadStrategy": "normal", "unhandledPromptBehavior": "accept",
                        "timeouts": {"implicit": 0, "pageLoad": int(timeout * 1000), "script": int(timeout * 1000)},
                        "goog:chromeOptions": {"binary": CHROMIUM, "args": arguments}}
        value = self.call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        self.id = value["sessionId"]

    def end(self):
        if self.id:
            session, self.id = self.id, None
            self.call("DELETE", f"/session/{session}", limit=15)

    def script(self, source, *arguments):
        return self.call("POST", "/execute/sync", {"script": source, "args": list(arguments)})

    def page(self):
        """The address, title and visible text of the top document."""
        self.call("POST", "/frame", {"id": None})
        return self.script("return {url: location.href, title: document.title,"
                           " text: document.body ? document.body.innerText : ''};")

    def describe(self):
        try:
            page = self.page()
            text = re.sub(r"\s+", " ", page["text"])[:600]
            return f"the browser is at {page['url']} (title {page['title']!r}): {text}"
        except (WebDriverError, Failure) as error:
            return f"the page could not be read ({error})"

    def element(self, selector, deadline, frame=None, index=0):
        """The element `selector` (the `index`th that matches) once it is shown, inside the iframe `frame` if given
        (switched into)."""

        def find():
            self.call("POST", "/frame", {"id": None})
            if frame:
                container = self.call("POST", "/element", {"using": "css selector", "value": frame})
                self.call("POST", "/frame", {"id": container})
            found = self.call("POST", "/elements", {"using": "css selector", "value": selector})
            if len(found) <= index:
                return None
            shown = self.call("GET", f"/element/{found[index][ELEMENT]}/displayed")
            return found[index][ELEMENT] if shown else None

        where = f" in the frame {frame!r}" if frame else ""
        return wait_until(f"the element {selector!r}{where} to be shown", deadline, find, self.describe)

    def click(self, selector, deadline, frame=None, index=0):
        def clicked():
            self.call("POST", f"/element/{self.element(selector, deadline, frame, index)}/click")
            return True

        wait_until(f"a click on {selector!r}", deadline, clicked, self.describe)
        self.call("POST", "/frame", {"id": None})

    def type(self, selector, text, deadline, frame=None):
        element = self.element(selector, deadline, frame)
        self.call("POST", f"/element/{element}/clear")
        self.call("POST", f"/element/{element}/value", {"text": text})
        self.call("POST", "/frame", {"id": None})

    def loaded(self, deadline):
        wait_until("the page to finish loading", deadline,
                   lambda: self.script("return document.readyState;") == "complete", self.describe)


def emulator_idp(session, answer, deadline, choices):
    """Answers the bundled emulator's provider page as a person would, then waits until the browser left it."""
    session.loaded(deadline)
    page = session.page()
    if "/emulator/auth/idp" not in page["url"] or not page["title"].startswith("Sign in with"):
        raise Failure(f"not the emulator's provider page: {session.describe()}")
    if answer == "decline":
        session.click("a.decline", deadline)
        choices.append("decline")
    else:
        email = answer["email"]
        listed = session.script(
            "return [...document.querySelectorAll('a.account')].findIndex(a => a.textContent.includes(arguments[0]));",
            f"<{email}>")
        if listed >= 0:
            session.click("a.account", deadline, index=listed)
            choices.append(f"listed {email}")
        else:
            session.type("form.new-account input[name=email]", email, deadline)
            if answer.get("displayName"):
                session.type("form.new-account input[name=displayName]", answer["displayName"], deadline)
            session.click("form.new-account button[type=submit]", deadline)
            choices.append(f"new {email}")
    wait_until("the browser to leave the emulator's provider page", deadline,
               lambda: "/emulator/auth/idp" not in session.script("return location.href;"), session.describe)
    session.loaded(deadline)


def mark(result, what):
    """Notes in the result when `what` happened, in seconds from the start."""
    result["timeline"].append([round(time.monotonic() - result["started"], 2), what])


def run_steps(session, url, script, overall, result):
    timeout = float(script.get("timeout", 60))
    steps = script.get("steps")
    if steps is None:
        steps = [{"emulator_idp": {"email": "ada@example.com", "displayName": "Ada"}}] if "/emulator/auth/idp" in url else []
    session.call("POST", "/url", {"url": url})
    mark(result, "opened")
    for step in steps:
        deadline = Deadline(timeout, overall)
        if "open" in step:
            session.call("POST", "/url", {"url": step["open"]})
        elif "click" in step:
            session.click(step["click"], deadline, step.get("frame"))
        elif "type" in step:
            session.type(step["type"], step["text"], deadline, step.get("frame"))
        elif "wait_text" in step:
            wait_until(f"the text {step['wait_text']!r}", deadline,
                       lambda: step["wait_text"] in session.page()["text"], session.describe)
        elif "wait_url" in step:
            wait_until(f"an address holding {step['wait_url']!r}", deadline,
                       lambda: step["wait_url"] in session.script("return location.href;"), session.describe)
        elif "capture" in step:
            session.loaded(deadline)
            result["pages"].append(session.page())
        elif "emulator_idp" in step:
            emulator_idp(session, step["emulator_idp"], deadline, result["choices"])
        else:
            raise Failure(f"unknown step {step}")
        mark(result, next(iter(step)))
    session.loaded(Deadline(timeout, overall))
    result["final"] = session.page()
    mark(result, "final page read")


def descendants():
    """This process's descendants, deepest first."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = [], [os.getpid()]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found = children + found
        frontier = children
    return found


def end_all(driver, session):
    """Ends the session (chromium closes), chromedriver, and any process of theirs left over (reparented here)."""
    problems = []
    if session is not None:
        try:
            session.end()
        except (WebDriverError, Failure) as error:
            problems.append(f"ending the session: {error}")
    if driver is not None and driver.poll() is None:
        driver.terminate()
        try:
            driver.wait(timeout=5)
        except subprocess.TimeoutExpired:
            driver.kill()
    deadline = Deadline(15)
    while True:
        left = descendants()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        if not left:
            break
        if deadline.passed():
            problems.append(f"processes {left} outlived SIGKILL")
            break
        time.sleep(POLL)
    return problems


def sandbox_possible():
    """Whether chromium's sandbox can start as an unprivileged user here (it needs user namespaces)."""
    for path, off in (("/proc/sys/kernel/unprivileged_userns_clone", "0"), ("/proc/sys/user/max_user_namespaces", "0")):
        try:
            with open(path) as setting:
                if setting.read().strip() == off:
                    return False
        except OSError:
            pass
    return True


def start_driver(work, deadline, tries=5):
    """chromedriver on a free loopback port, as `nobody` when this is root; returns it and its base URL.

    Given port 0, chromedriver takes a free port on one loopback address and exits when the other (127.0.0.1 or ::1)
    has that port taken already; it is started again then, `tries` times at most."""
    log = os.path.join(work, "chromedriver.log")
    output = os.path.join(work, "chromedriver.out")
    environment = {"PATH": "/usr/bin:/bin", "HOME": os.path.join(work, "home"), "TMPDIR": os.path.join(work, "tmp"),
                   "LANG": "C.UTF-8"}
    drop = {}
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        drop = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
    for attempt in range(1, tries + 1):
        with open(output, "wb") as out, open(log, "wb") as err:
            driver = subprocess.Popen([CHROMEDRIVER, "--port=0", "--log-level=INFO"],
                                      stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=environment, cwd=work,
                                      start_new_session=True, **drop)

        def port():
            if driver.poll() is not None:
                return "exited"
            with open(output) as text:
                found = re.search(r"started successfully on port (\d+)", text.read())
            return found and found.group(1)

        found = wait_until("chromedriver to listen", deadline, port)
        if found != "exited":
            return driver, f"http://127.0.0.1:{found}"
        if "Address already in use" not in tail(log) or attempt == tries:
            raise Failure(f"chromedriver exited with {driver.returncode} (start {attempt} of {tries}): {tail(log)}")


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as text:
            return "".join(text.readlines()[-lines:])
    except OSError:
        return ""


def browser_arguments(work, sandbox):
    arguments = ["--headless=new", f"--user-data-dir={os.path.join(work, 'profile')}", "--no-first-run",
                 "--no-default-browser-check", "--disable-dev-shm-usage", "--password-store=basic",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-extensions", "--disable-default-apps", "--no-pings", "--no-proxy-server",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]", "--window-size=1280,900", "--lang=en-US"]
    return arguments + ([] if sandbox else ["--no-sandbox"])


class Chromium:
    """A WebDriver session of a headless chromium, as a context: `with Chromium(deadline) as session:`. chromium runs
    sandboxed (as `nobody` when this is root), with a throwaway profile, reaching loopback only; on leaving, the
    session, chromedriver and every process of theirs end (this process becomes their subreaper) and the profile is
    deleted, SIGTERM, SIGINT and SIGHUP ignored meanwhile. `mark` is told each stage; after leaving, `problems` says
    what the ending met, and `log` holds chromedriver's last lines when starting failed."""

    def __init__(self, overall, timeout=60, mark=lambda what: None):
        self.overall, self.timeout, self.mark = overall, timeout, mark
        self.sandbox = os.geteuid() != 0 or sandbox_possible()
        self.driver = self.session = self.work = None
        self.problems, self.log = [], ""

    def __enter__(self):
        # PR_SET_CHILD_SUBREAPER: what chromedriver leaves behind is reparented here, to be ended.
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
        self.work = tempfile.mkdtemp(prefix="chromium-browser-", dir="/tmp")
        try:
            for name in ("home", "tmp", "profile"):
                os.mkdir(os.path.join(self.work, name))
            if os.geteuid() == 0:
                nobody = pwd.getpwnam("nobody")
                for directory in (self.work, *(os.path.join(self.work, name) for name in ("home", "tmp", "profile"))):
                    os.chown(directory, nobody.pw_uid, nobody.pw_gid)
            self.driver, base = start_driver(self.work, Deadline(60, self.overall))
            self.mark("chromedriver listening")
            self.session = Session(base, self.overall)
            self.session.start(browser_arguments(self.work, self.sandbox), self.timeout)
            self.mark("chromium started")
            return self.session
        except BaseException:
            self.log = tail(os.path.join(self.work, "chromedriver.log"))
            self.__exit__(None, None, None)
            raise

    def __exit__(self, *_exception):
        previous = {number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
        try:
            self.mark("ending")
            self.problems = end_all(self.driver, self.session)
            self.driver = self.session = None
            shutil.rmtree(self.work, ignore_errors=True)
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
        return False


def interrupted(number, _frame):
    raise Failure(f"interrupted by signal {number}")


def write(path, result):
    """Writes the result whole (a reader never sees half of it)."""
    partial = f"{path}.{os.getpid()}.partial"
    with open(partial, "w") as out:
        json.dump(result, out, indent=1)
    os.replace(partial, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", default=os.environ.get("CHROMIUM_BROWSER_SCRIPT"),
                        help="the person's steps, a JSON file ($CHROMIUM_BROWSER_SCRIPT)")
    parser.add_argument("--result", default=os.environ.get("CHROMIUM_BROWSER_RESULT"),
                        help="where to write the result, JSON ($CHROMIUM_BROWSER_RESULT); else standard output")
    parser.add_argument("--timeout", type=float, default=240, help="the whole run's time limit, in seconds")
    parser.add_argument("url")
    options = parser.parse_args()
    started = time.monotonic()
    overall = Deadline(options.timeout)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, interrupted)
    result = {"ok": False, "error": None, "final": None, "pages": [], "choices": [], "sandbox": False, "timeline": [],
              "started": started}
    browser = None
    try:
        script = {}
        if options.script:
            with open(options.script) as text:
                try:
                    script = json.load(text)
                except ValueError as error:
                    raise Failure(f"the script {options.script} is not JSON: {error}") from None
        browser = Chromium(overall, float(script.get("timeout", 60)), lambda what: mark(result, what))
        result["sandbox"] = browser.sandbox
        with browser as session:
            try:
                run_steps(session, options.url, script, overall, result)
                result["ok"] = True
            except (Failure, WebDriverError) as error:
                result["error"] = str(error)
                try:
                    result["final"] = session.page()
                except (Failure, WebDriverError):
                    pass
    except (Failure, WebDriverError, OSError, ValueError, KeyError) as error:
        log = browser.log if browser and browser.log.strip() not in str(error) else ""
        result["error"] = str(error) + (f"\nchromedriver's log ends:\n{log}" if log else "")
    if browser and browser.problems:
        result["cleanup"] = browser.problems
    mark(result, "ended")
    del result["started"]
    result["seconds"] = round(time.monotonic() - started, 2)
    if options.result:
        write(options.result, result)
    else:
        json.dump(result, sys.stdout, indent=1)
        print()
    steps = ", ".join(f"{what} {at}" for at, what in result["timeline"])
    print(f"chromium_browser: {'ok' if result['ok'] else 'failed'} in {result['seconds']} s ({steps}) at {options.url}",
          file=sys.stderr)
    if result["error"]:
        print(f"chromium_browser: {result['error']}", file=sys.stderr)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
