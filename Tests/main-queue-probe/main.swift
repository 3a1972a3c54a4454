// main-queue-probe: a program shaped as a GTK app is (a synchronous main whose main thread runs GLib's main loop),
// with GLibMainQueue attached. It checks that what is queued on the dispatch main queue, on the main actor, and an
// Auth's listener and completion calls with `callbackQueue: .main` all run on the main thread, in order, none
// lost, also what was queued while the main thread was busy. One line per check ("ok …" or "FAIL …"); exit
// status 0 when all passed, 1 otherwise.
import CSecret
import Dispatch
import Foundation
import KeyringAuth
import KeyringTestSupport
import SecretKeychain
import Synchronization
import SystemSupport

/// What ran on the main queue, in order; `false` in `offMain` once anything ran off the main thread.
nonisolated(unsafe) var ran: [String] = []
nonisolated(unsafe) var offMain: [String] = []
func record(_ event: String) {
    if !Thread.isMainThread { offMain.append(event) }
    ran.append(event)
}

let rounds = 20
let blocks = 1000
/// The uids the background task signed in, in order.
let signedIn = Mutex<[String]>([])
let workQueued = DispatchSemaphore(value: 0)
nonisolated(unsafe) var failures = 0
func check(_ passed: Bool, _ what: String) {
    print(passed ? "ok \(what)" : "FAIL \(what)")
    if !passed { failures += 1 }
}

GLibMainQueue.attach()
GLibMainQueue.attach()  // again: nothing changes
let loop = g_main_loop_new(nil, 0)!
defer { g_main_loop_unref(loop) }
let options = AuthAppOptions(apiKey: "AIzaSharedKey", appID: "1:1234567890:linux:main-queue-probe", projectID: "demo")
let auth = Auth.configure(AuthConfiguration(
    options: options, store: InMemoryStore(), backend: FakeBackend(), callbackQueue: .main, liveSync: false))
auth.addStateDidChangeListener { _, user in record("state \(user?.uid ?? "nobody")") }

// The main thread is busy (blocked in a GLib callback) while everything is queued from other threads.
let busy: GSourceFunc = { _ in
    do {
        try OwnThread.detach(name: "queue-work") {
            for index in 0..<blocks { DispatchQueue.main.async { record("block \(index)") } }
            Task { @MainActor in record("main actor") }  // its job is queued on the main actor here, before the quit
            workQueued.signal()
        }
    } catch {
        print("main-queue-probe: \(error)")
        exit(1)
    }
    Task.detached {
        for _ in 0..<rounds {
            guard let result = try? await auth.signInAnonymously() else { continue }
            signedIn.withLock { $0.append(result.user.uid) }
            try? auth.signOut()
        }
        auth.signInAnonymously { result, _ in
            record("completion \(result?.user.uid ?? "failed")")
            try? auth.signOut()
            DispatchQueue.main.async { g_main_loop_quit(loop) }  // after everything queued before it
        }
        workQueued.signal()
    }
    workQueued.wait()
    workQueued.wait()
    return 0  // G_SOURCE_REMOVE
}
g_idle_add(busy, nil)
let timeout: GSourceFunc = { _ in
    print("FAIL the main loop was still waiting after 30 s")
    exit(1)
}
g_timeout_add_seconds(30, timeout, nil)
g_main_loop_run(loop)

let uids = signedIn.withLock { $0 }
check(offMain.isEmpty, "everything ran on the main thread (off it: \(offMain.prefix(3)))")
check(ran.filter { $0.hasPrefix("block ") } == (0..<blocks).map { "block \($0)" }, "\(blocks) blocks queued on DispatchQueue.main while the loop was busy ran, in order")
check(ran.contains("main actor"), "a main-actor task queued while the loop was busy ran")
let expectedStates = ["state nobody"] + uids.flatMap { ["state \($0)", "state nobody"] }
let states = ran.filter { $0.hasPrefix("state ") }
check(uids.count == rounds && states.prefix(expectedStates.count) == expectedStates[...],
      "the state listener saw each of \(rounds) sign-ins and sign-outs made while the loop was busy, in order")
check(ran.contains { $0.hasPrefix("completion ") && $0 != "completion failed" }, "a completion handler ran on the main queue")
exit(failures == 0 ? 0 : 1)
