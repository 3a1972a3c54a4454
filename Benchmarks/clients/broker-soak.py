#!/usr/bin/python3
"""The broker after many calls from many apps: what it holds before and after, and how many calls a second it
served. Prints Markdown.

    broker-soak.py APP_JSON GROUP BROKER_PID RUN_AS_FLATPAK SOAK_DRIVER [--apps N] [--sandboxed N] [--connections N]
                   [--calls N]

Each app is a process of its own running SOAK_DRIVER (Tests/broker-driver/broker_soak.py: on each of its connections,
rounds of Keychain1 Follow and Unfollow, Watch and Unwatch, SignInAnonymously, GetIDToken and SignOut in a private
scope of its own, StartGitHubSignIn left unfinished on a connection that leaves, GetIDToken on a connection that leaves
before the answer). The first --sandboxed apps run as the Flatpak apps com.example.Soak00, com.example.Soak01, …
(RUN_AS_FLATPAK, with the network), the others on the host; every app names a Firebase app of its own. A round of
every app first (the warm-up), then enough rounds for --calls calls in all.

The broker's resident memory (VmRSS, and its peak VmHWM), threads (/proc/PID/task) and descriptors (/proc/PID/fd):
after the warm-up, once it has held no more threads for a few seconds; the most seen while the apps ran; and once every
app has left, when its threads and descriptors are back where they started (or after --settle seconds).
"""
import argparse
import json
import math
import subprocess
import threading
import time

from process_figures import descriptors, status, threads

CALLS_A_ROUND = 9  # what broker_soak.py counts in one round of one connection


def holdings(pid):
    return {"rss": status(pid, "VmRSS"), "peak": status(pid, "VmHWM"), "threads": threads(pid), "fds": descriptors(pid)}


def soak(options, rounds):
    """Runs every app's driver for `rounds` rounds at once; answers the calls they made and the errors they met."""
    apps = []
    for index in range(options.apps):
        app = dict(json.loads(options.app), appID="1:1:linux:soak%02d" % index)
        command = ["/usr/bin/python3", options.driver, json.dumps(app), options.group, str(rounds), str(options.connections)]
        if index < options.sandboxed:
            command = [options.run_as_flatpak, "--share=network", "--ro", options.driver, "com.example.Soak%02d" % index] + command
        apps.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    calls, refusals, errors = 0, 0, []
    for app in apps:
        output, warnings = app.communicate()
        lines = output.splitlines()
        if app.returncode != 0 or not lines:
            raise SystemExit("broker-soak: an app's driver failed (status %d): %s" % (app.returncode, warnings[-2000:]))
        counts = json.loads(lines[-1])
        calls += counts["calls"]
        refusals += counts["refusals"]
        if counts["errors"]:
            errors.append("%d errors, the first: %s" % (counts["errors"], counts["firstError"]))
    return calls, refusals, errors


def settled(pid, limit, within):
    """What the broker holds once its threads and descriptors are no more than `limit`'s, or after `within` seconds;
    and how long that took."""
    started = time.monotonic()
    while True:
        now = holdings(pid)
        waited = time.monotonic() - started
        if (now["threads"] <= limit["threads"] and now["fds"] <= limit["fds"]) or waited > within:
            return now, waited
        time.sleep(0.2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("app")
    parser.add_argument("group")
    parser.add_argument("pid", type=int)
    parser.add_argument("run_as_flatpak")
    parser.add_argument("driver")
    parser.add_argument("--apps", type=int, default=50)
    parser.add_argument("--sandboxed", type=int, default=5)
    parser.add_argument("--connections", type=int, default=2)
    parser.add_argument("--calls", type=int, default=100000)
    parser.add_argument("--settle", type=float, default=60)
    options = parser.parse_args()
    pid = options.pid

    soak(options, 1)
    start, _ = settled(pid, {"threads": 0, "fds": 0}, 6)
    most = dict(start)
    running = threading.Event()

    def watch():
        while not running.wait(0.5):
            now = holdings(pid)
            most.update({key: max(most[key], now[key]) for key in ("threads", "fds", "rss")})
    watcher = threading.Thread(target=watch)
    watcher.start()
    rounds = math.ceil(options.calls / (options.apps * options.connections * CALLS_A_ROUND))
    began = time.monotonic()
    calls, refusals, errors = soak(options, rounds)
    elapsed = time.monotonic() - began
    running.set()
    watcher.join()
    end, waited = settled(pid, start, options.settle)

    print("%d calls from %d apps (%d sandboxed), %d connections each and 2 more a round: %.0f calls a second over %.0f s; "
          "%d refused by the broker's per-app limits, %d errors."
          % (calls, options.apps, options.sandboxed, options.connections, calls / elapsed, elapsed, refusals,
             sum(int(error.split()[0]) for error in errors)))
    for error in errors[:3]:
        print("- " + error)
    print()
    print("| the broker | resident (MiB) | peak resident (MiB) | threads | descriptors |")
    print("|---|---:|---:|---:|---:|")
    print("| after the warm-up | %.1f | %.1f | %d | %d |" % (start["rss"] / 1024, start["peak"] / 1024, start["threads"], start["fds"]))
    print("| the most while the apps ran | %.1f | | %d | %d |" % (most["rss"] / 1024, most["threads"], most["fds"]))
    print("| every app gone (%.1f s later) | %.1f | %.1f | %d | %d |"
          % (waited, end["rss"] / 1024, end["peak"] / 1024, end["threads"], end["fds"]))


if __name__ == "__main__":
    main()
