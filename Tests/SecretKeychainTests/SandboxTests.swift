import Foundation
import Testing

@testable import SecretKeychain

/// Sandbox detection from faked markers (nothing under `/` is touched), the providers' quirks, and
/// the provider version read from a dpkg database.
@Suite struct SandboxTests {
    static func detect(_ environment: [String: String], files: Set<String> = []) -> Sandbox {
        SandboxDetection(environment: environment) { files.contains($0) }.detect()
    }

    @Test func flatpakIsTheMarkerFileWithItsAppID() {
        #expect(Self.detect(["FLATPAK_ID": "org.example.App"], files: ["/.flatpak-info"]) == .flatpak(appID: "org.example.App"))
        #expect(Self.detect([:], files: ["/.flatpak-info"]) == .flatpak(appID: nil))
        // libsecret decides on the file alone: FLATPAK_ID without it is no sandbox.
        #expect(Self.detect(["FLATPAK_ID": "org.example.App"]) == Sandbox.none)
    }

    @Test func theTestOnlyVariableStandsInForTheMarkerFile() {
        let environment = ["FLATPAK_ID": "org.example.App", SandboxDetection.testFlatpakInfoVariable: "/tmp/fake-flatpak-info"]
        #expect(Self.detect(environment, files: ["/tmp/fake-flatpak-info"]) == .flatpak(appID: "org.example.App"))
        #expect(Self.detect(environment) == Sandbox.none, "the named file does not exist")
    }

    @Test func snapIsNamedBySnapNameOrThePathInSnap() {
        #expect(Self.detect(["SNAP_NAME": "my-app", "SNAP": "/snap/my-app/12"]) == .snap(name: "my-app"))
        #expect(Self.detect(["SNAP": "/snap/other-app/x1"]) == .snap(name: "other-app"))
        #expect(Self.detect(["HOME": "/home/a"]) == Sandbox.none)
    }

    @Test func adviceSaysHowToShare() throws {
        #expect(Sandbox.none.sharingAdvice == nil && !Sandbox.none.isSandboxed)
        #expect(try #require(Sandbox.flatpak(appID: "a.b").sharingAdvice).contains("--talk-name=io.github.keyringauth.Broker1"))
        let snap = try #require(Sandbox.snap(name: "my-app").sharingAdvice)
        #expect(snap.contains("password-manager-service") && snap.contains("snap connect my-app:password-manager-service"))
    }

    @Test func everyKnownProviderHasItsQuirks() {
        let ids = { (provider: SecretServiceDiagnosis.Provider) in Set(provider.quirks.map(\.id)) }
        #expect(ids(.kWallet).isSuperset(of: ["kwallet-session-bug", "kwallet-text-content-type", "kwallet-label-kept-on-replace", "kwallet-signals-per-path"]))
        #expect(SecretServiceDiagnosis.Provider.kWallet.quirks.contains { $0.summary.contains("514194") })
        #expect(ids(.keePassXC) == [
            "keepassxc-no-default-alias-object", "keepassxc-per-database-lock", "keepassxc-silent-changes-while-saving",
            "keepassxc-concurrent-delete-crash", "keepassxc-change-during-save-crash", "keepassxc-unlock-dialog-stays",
            "keepassxc-per-client-confirmation",
        ])
        #expect(ids(.gnomeKeyring) == ["gnome-keyring-locked-prompt"])
        #expect(SecretServiceDiagnosis.Provider.other("secretsd").quirks.isEmpty)
        var report = SecretServiceDiagnosis()
        #expect(report.quirks.isEmpty)
        report.provider = .keePassXC
        #expect(report.quirks.map(\.id) == SecretServiceDiagnosis.Provider.keePassXC.quirks.map(\.id))
    }

    @Test func theVersionIsTheInstalledPackageOfTheExecutable() throws {
        let status = FileManager.default.temporaryDirectory.appendingPathComponent("dpkg-status-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: status) }
        try Data("""
            Package: keepassxc
            Status: deinstall ok config-files
            Version: 2.6.0-1

            Package: libkf5wallet-bin
            Status: install ok installed
            Architecture: amd64
            Version: 5.103.0-1

            Package: keepassxc
            Status: install ok installed
            Version: 2.7.4+dfsg.1-2

            """.utf8).write(to: status)
        let lookup = ProviderVersionLookup(statusPath: status.path)
        #expect(lookup.version(ofExecutable: "/usr/bin/kwalletd5")! == ("libkf5wallet-bin", "5.103.0-1"))
        #expect(lookup.version(ofExecutable: "/usr/bin/keepassxc")! == ("keepassxc", "2.7.4+dfsg.1-2"), "the installed one")
        #expect(lookup.version(ofExecutable: "/usr/bin/keepassxc (deleted)") == nil, "replaced since it started")
        #expect(lookup.version(ofExecutable: "/usr/bin/gnome-keyring-daemon") == nil, "not installed")
        #expect(lookup.version(ofExecutable: "/usr/bin/secretsd") == nil, "no known package")
        #expect(ProviderVersionLookup(statusPath: "/nonexistent/status").version(ofExecutable: "/usr/bin/keepassxc") == nil)
    }
}
