import Foundation
import SecretKeychain
import Subprocesses
import SystemSupport

/// The demo's steps: Firebase's shared-keychain walkthrough with two apps, then live sync. Each
/// step prints what the apps see and returns how many of its checks were not as documented.
struct DemoWalkthrough {
    let a: DemoApp
    let b: DemoApp
    let group: String

    /// Plays every step in order; returns how many checks were not as documented. A step that
    /// cannot run counts as one and ends the walkthrough.
    func play() async -> Int {
        var failures = 0
        do {
            failures += try await shareTheGroup()
            let uid = try await signInOnce()
            failures += uid.failures
            failures += try await signOutOnce()
            let privateUser = try await backToAnUnsharedKeychain()
            failures += privateUser.failures
            failures += try await migrate(privateUser.uid)
            failures += try await liveSync(following: privateUser.uid)
        } catch {
            failures += 1
            print("   the step failed: \(error)")
        }
        return failures
    }

    /// Signs out of the group and takes both apps back to their private scope, whatever happened.
    func cleanUp() async {
        print("\nCleaning up: signing out of the group, both apps back to their private scope.")
        _ = try? await a.run(["sign-out", "--group", group], allowing: [0, 3])
        _ = try? await a.run(["use-group", "--none"])
        _ = try? await b.run(["use-group", "--none"])
    }

    private func shareTheGroup() async throws -> Int {
        print("\n1. Both apps share auth state in the access group \(group) (useUserAccessGroup).")
        try await a.run(["use-group", group])
        try await b.run(["use-group", group])
        return try await check([nil, nil], "nobody is signed in yet")
    }

    private func signInOnce() async throws -> (uid: String?, failures: Int) {
        print("\n2. Sign in once: \(a.name) signs in anonymously.")
        let uid = try await a.signIn(["--anonymous", "--group", group])
        return (uid, try await check([uid, uid], "both apps are signed in as the same user"))
    }

    private func signOutOnce() async throws -> Int {
        print("\n3. Sign out once: \(b.name) signs out.")
        try await b.run(["sign-out", "--group", group])
        return try await check([nil, nil], "both apps are signed out")
    }

    private func backToAnUnsharedKeychain() async throws -> (uid: String?, failures: Int) {
        print("\n4. Back to an unshared keychain: \(a.name) leaves the group and signs in on its own.")
        try await a.run(["use-group", "--none"])
        let uid = try await a.signIn(["--anonymous"])
        return (uid, try await check([uid, nil], "the private sign-in is not shared"))
    }

    private func migrate(_ uid: String?) async throws -> Int {
        print("\n5. Migration: \(a.name) carries its signed-in user into the group (use-group --migrate).")
        try await a.run(["use-group", group, "--migrate"])
        return try await check([uid, uid], "the user is shared, still signed in")
    }

    private func liveSync(following uid: String?) async throws -> Int {
        print("\n6. Live sync: \(b.name) keeps running (keyring-auth watch); \(a.name) signs out, then in again.")
        let watch = try b.watch(group)
        defer { watch.child.send(SIGKILL) }
        var failures = try await expect(watch, "now", uid)
        let signedOut = try await timed { try await a.run(["sign-out", "--group", group]) }
        failures += try await expect(watch, "signed-out", nil, after: signedOut.took)
        let signedIn = try await timed { try await a.signIn(["--anonymous", "--group", group]) }
        failures += try await expect(watch, "signed-in", signedIn.result, after: signedIn.took)
        watch.child.send(SIGINT)
        _ = await watch.finish()
        return failures
    }

    /// Asks each app, in a process of its own, whom it sees, and compares with the walkthrough.
    private func check(_ expected: [String?], _ meaning: String) async throws -> Int {
        var described: [String] = []
        var ok = true
        for (app, want) in zip([a, b], expected) {
            let uid = try await app.sees()
            ok = ok && uid == want
            described.append("\(app.name) sees \(uid ?? "nobody")\(uid == want ? "" : " (expected \(want ?? "nobody"))")")
        }
        print("   \(described.joined(separator: ", ")) — \(ok ? "ok" : "NOT AS DOCUMENTED"): \(meaning)")
        return ok ? 0 : 1
    }

    /// Reads app-b's next `watch` line and compares it with `event` and `uid`. `after` is how long
    /// app-a's action took, and when its process returned, for the timing.
    private func expect(
        _ watch: LineChannel, _ event: String, _ uid: String?, after action: (ran: Duration, returned: ContinuousClock.Instant)? = nil
    ) async throws -> Int {
        let line = try await watch.nextLine(within: .seconds(20))
        let seenAt = ContinuousClock.now
        let decoded = try? JSONDecoder().decode(DemoApp.WatchLine.self, from: Data(line.utf8))
        let (seen, seenUID) = (decoded?.event ?? line, decoded?.user?.uid)
        let ok = seen == event && seenUID == uid
        let timing = action.map {
            " \(Self.milliseconds(seenAt - $0.returned)) after \(a.name)'s process returned (\(Self.milliseconds($0.ran)) to run it)"
        } ?? ""
        print("   \(b.name), still running, sees \(seen)\(seenUID.map { " \($0)" } ?? "")\(timing) — "
            + (ok ? "ok" : "NOT AS EXPECTED (\(event) \(uid ?? ""))"))
        return ok ? 0 : 1
    }

    /// Runs `action`; returns its result, how long it took and when it returned.
    private func timed<Result>(
        _ action: () async throws -> Result
    ) async throws -> (result: Result, took: (ran: Duration, returned: ContinuousClock.Instant)) {
        let started = ContinuousClock.now
        let result = try await action()
        let returned = ContinuousClock.now
        return (result, (returned - started, returned))
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.0f ms", duration.inMilliseconds)
    }
}
