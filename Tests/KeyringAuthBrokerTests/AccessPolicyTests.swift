import Foundation
import KeyringAuth
import SecretKeychain
import SystemSupport
import Testing
@testable import KeyringAuthBroker

/// The broker's rule for sandboxed callers, and what it reads to tell who is calling.
@Suite struct AccessPolicyTests {
    let policy = AccessPolicy(snapGrants: SnapGrants(text: "snap notes TEAMID.com.example.shared\nsnap tools *  # any group\nsnap private -\n"))

    private func allows(_ caller: Caller, _ group: String?) -> Bool {
        do {
            try policy.check(caller, group: try group.map(AccessGroup.init))
            return true
        } catch {
            return false
        }
    }

    @Test func aFlatpakAppUsesGroupsUnderItsOwnDomainOnly() {
        let notes = Caller.flatpak(appID: "com.example.Notes")
        for group in ["TEAMID.com.example.shared", "ABCDE12345.com.example.shared", "group.com.example.shared", "com.example.shared",
                      "com.example.Notes.sub", "TEAMID.com.example.a.b"] {
            #expect(allows(notes, group), "\(group)")
        }
        for group in ["TEAMID.org.evil.shared", "TEAMID.com.example", "com.examples.shared", "team.com.example.shared",
                      "TEAMID.com", "TEAMID.com.exampleX.shared", "group.com.example", "TEAMID.TEAMID.com.example.shared"] {
            #expect(!allows(notes, group), "\(group)")
        }
        #expect(allows(notes, nil), "its private scope")
        #expect(!allows(.flatpak(appID: "org.evil.App"), "TEAMID.com.example.shared"))
        #expect(allows(.flatpak(appID: "io.github.someone.App"), "TEAMID.io.github.someone.shared"))
        #expect(!allows(.flatpak(appID: "io.github.someone.App"), "TEAMID.io.github.other.shared"))
    }

    /// The article's table: an app ID whose domain is an Apple-style prefix, a code host's own or a public suffix gives
    /// no group; its private scope is still its own.
    @Test func anAppIDGivesNoDomainThatIsNotItsDevelopers() {
        let refused: [(appID: String, group: String)] = [
            ("group.com.example.Evil", "group.com.example.shared"), ("group.com.example.Evil", "group.group.com.example.shared"),
            ("TEAMID.com.example.Evil", "TEAMID.com.example.shared"), ("TEAMID.com.example.Evil", "TEAMID.TEAMID.com.example.shared"),
            ("io.github.Evil", "io.github.victim.shared"), ("io.github.Evil", "TEAMID.io.github.Evil.shared"),
            ("com.github.Evil", "com.github.victim.shared"), ("io.gitlab.Evil", "io.gitlab.victim.shared"),
            ("page.codeberg.Evil", "page.codeberg.victim.shared"), ("io.sourceforge.Evil", "io.sourceforge.victim.shared"),
            ("uk.co.Evil", "uk.co.victim.shared"), ("au.com.Evil", "TEAMID.au.com.victim.shared"),
            ("io.github.victim.Notes", "io.github.other.shared"),
        ]
        for (appID, group) in refused {
            #expect(!allows(.flatpak(appID: appID), group), "\(appID) → \(group)")
            #expect(allows(.flatpak(appID: appID), nil), "\(appID)'s private scope")
        }
        let allowed: [(appID: String, group: String)] = [
            ("io.github.victim.Notes", "io.github.victim.shared"), ("io.github.victim.Notes", "group.io.github.victim.shared"),
            ("com.github.victim.Notes", "TEAMID.com.github.victim.shared"), ("uk.co.example.App", "uk.co.example.shared"),
            ("com.example.Notes", "group.com.example.shared"), ("org.gnome.Notes", "TEAMID.org.gnome.shared"),
        ]
        for (appID, group) in allowed {
            #expect(allows(.flatpak(appID: appID), group), "\(appID) → \(group)")
        }
        #expect(AppID.groupDomain(of: "com.example.Notes") == ["com", "example"])
        #expect(AppID.groupDomain(of: "io.github.Evil") == nil && AppID.groupDomain(of: "group.com.example.Evil") == nil)
    }

    @Test func hostProcessesUseAnyGroupAndSnapsOnlyWhatIsGranted() {
        #expect(allows(.host, "TEAMID.org.anything.at.all"))
        #expect(allows(.host, nil))
        #expect(allows(.snap(name: "notes"), "TEAMID.com.example.shared"))
        #expect(!allows(.snap(name: "notes"), "TEAMID.com.example.other"))
        #expect(!allows(.snap(name: "notes"), nil))
        #expect(allows(.snap(name: "tools"), "TEAMID.org.any"))
        #expect(allows(.snap(name: "private"), nil))
        #expect(!allows(.snap(name: "unlisted"), nil))
    }

    @Test func aSandboxedAppsPrivateScopeIsKeyedByItsVerifiedIdentity() {
        let options = AuthAppOptionsFixture.options
        #expect(Broker.storedOptions(options, for: .host) == options)
        #expect(Broker.storedOptions(options, for: .flatpak(appID: "com.example.Notes")).appName == "flatpak:com.example.Notes:[DEFAULT]")
        #expect(Broker.storedOptions(options, for: .snap(name: "notes")).appName == "snap:notes:[DEFAULT]")
    }

    @Test func flatpakInfoIsReadAsFlatpakWritesIt() throws {
        let info = "[Application]\nname=com.example.Notes\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n[Instance]\ninstance-id=123\n"
        #expect(try FlatpakInfo(info).appID == "com.example.Notes")
        #expect(throws: CallerIdentification.Failure.self) { try FlatpakInfo("[Application]\nname=com.example.Notes\n") }
        #expect(throws: CallerIdentification.Failure.self) { try FlatpakInfo("[Application]\nname=not valid\n[Instance]\ninstance-id=1\n") }
        #expect(throws: CallerIdentification.Failure.self) { try FlatpakInfo("[Instance]\ninstance-id=1\nname=com.example.Notes\n") }
        // A key or a section written twice: GLib would take the last value or merge; Flatpak writes neither, so it is refused.
        #expect(throws: CallerIdentification.Failure.self) {
            try FlatpakInfo("[Application]\nname=com.example.Notes\nname=org.evil.App\n[Instance]\ninstance-id=1\n")
        }
        #expect(throws: CallerIdentification.Failure.self) {
            try FlatpakInfo("[Application]\nname=com.example.Notes\n[Instance]\ninstance-id=1\n[Application]\nruntime=x\n")
        }
        // [Context] shared: the network only where Flatpak wrote it (1.14–1.16: network;ipc; 1.17: ipc;network;).
        #expect(try !FlatpakInfo(info).sharesNetwork)
        for shared in ["network;ipc;", "ipc;network;", "network", "ipc; network;"] {
            #expect(try FlatpakInfo(info + "\n[Context]\nshared=\(shared)\n").sharesNetwork, "\(shared)")
        }
        for shared in ["ipc;", "", "networks;", "net;work;"] {
            #expect(try !FlatpakInfo(info + "\n[Context]\nshared=\(shared)\n").sharesNetwork, "\(shared)")
        }
        #expect(try !FlatpakInfo(info + "\n[Context]\nsockets=network;\n[Session Bus Policy]\nshared=network;\n").sharesNetwork)
        for valid in ["com.example.Notes", "io.github.some_one.My-App", "org.gnome.Calculator"] { #expect(AppID.isValid(valid), "\(valid)") }
        for invalid in ["com.example", "com.1example.App", "com.ex-ample.App", "com..App", "com.example.App.", String(repeating: "a.", count: 200) + "b"] {
            #expect(!AppID.isValid(invalid), "\(invalid)")
        }
    }

    /// With a pidfd (as dbus-broker gives one), the process must be the bus's process ID and still run.
    @Test func aPidfdHoldsTheAnswerToItsRunningProcess() throws {
        let devNull = URL(fileURLWithPath: "/dev/null")
        let child = try ChildProcess(["/bin/sleep", "60"], stdin: devNull, stdout: devNull, stderr: devNull)
        let pid = child.pid
        // glibc's pidfd_open(2), which Swift's Glibc module leaves out.
        typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
        let pidfdOpen = try #require(dlsym(nil, "pidfd_open").map { unsafeBitCast($0, to: PidfdOpen.self) })
        let pidfd = pidfdOpen(pid, 0)
        try #require(pidfd >= 0, "pidfd_open: \(errno)")
        defer { close(pidfd) }
        #expect(try CallerIdentification.identify(pid: pid, pidfd: pidfd).caller == .host)
        #expect(throws: CallerIdentification.Failure.self) { try CallerIdentification.identify(pid: getpid(), pidfd: pidfd) }
        child.send(SIGKILL)
        _ = child.waitBlocking()
        #expect(throws: CallerIdentification.Failure.self) { try CallerIdentification.checkRunning(pidfd, is: pid) }
    }

    @Test func aSnapIsToldByItsCgroup() {
        #expect(SnapCgroup.snapName(in: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.notes.notes-1234.scope\n") == "notes")
        #expect(SnapCgroup.snapName(in: "0::/user.slice/user-1000.slice/session-2.scope\n") == nil)
    }
}

enum AuthAppOptionsFixture {
    static let options = AuthAppOptions(apiKey: "AIza-x", appID: "1:1:linux:1", projectID: "demo")
}
