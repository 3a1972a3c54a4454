import Foundation
import KeyringAuthEmulator
import KeyringTestSupport
import Testing

/// The emulator's Admin API driven by Google's own `firebase-admin` (Python, from PyPI) as a backend uses it:
/// one check per endpoint, each against an emulator of its own (`Tests/AdminSDK/admin_sdk_checks.py` says
/// what each asserts).
@Suite struct AdminSDKTests {
    static let checks = [
        "create_user", "lookup", "update_user", "delete_user", "list_users", "import_users", "delete_users", "query",
        "email_action_links", "tenants", "verify_id_token", "refusals", "emulator_endpoints", "sms_factors", "idp_sign_in",
    ]

    @Test(arguments: checks) func theAdminSDKWorksUnchanged(_ check: String) async throws {
        try await EmulatorFixture.with { fixture in
            let result = try await AdminSDK.run([check], emulator: "\(fixture.address)")
            #expect(result.status == 0 && result.output == "ok \(check)\n", "\(result.output)\(result.standardError)")
        }
    }

    @Test func everyCheckOfTheScriptRunsHere() async throws {
        let listed = try await AdminSDK.run([], emulator: "127.0.0.1:1")
        #expect(listed.output.split(separator: "\n").map(String.init) == Self.checks, "\(listed.standardError)")
    }
}
