import Foundation

/// Google's Admin SDK for Python (`firebase-admin` from PyPI), as a backend runs it: the checks of
/// `Tests/AdminSDK/admin_sdk_checks.py`, in a virtual environment inside the build folder that
/// `scripts/admin-sdk-env` makes on first use (never system-wide).
package enum AdminSDK {
    /// The repository's root directory.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    package struct SetupFailed: Error, CustomStringConvertible {
        package var description: String
    }

    /// The environment's `python`, made first when it is missing (about 10 s, from PyPI).
    ///
    /// - Throws: ``SetupFailed`` with the script's output when it cannot be made.
    package static func python() async throws -> String {
        let script = root.appendingPathComponent("scripts/admin-sdk-env").path
        let result = try await Subprocess.run("/bin/bash", [script], limit: .seconds(600))
        guard result.status == 0 else {
            throw SetupFailed(description: "scripts/admin-sdk-env failed (\(result.status)): \(result.standardError)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `admin_sdk_checks.py arguments` against the emulator at `address` (`host:port`), as a backend with
    /// `FIREBASE_AUTH_EMULATOR_HOST` set: no proxy, no Google credentials from the environment.
    package static func run(_ arguments: [String], emulator address: String, projectID: String = "demo-keyring-auth") async throws
        -> Subprocess.Result
    {
        var environment = ProcessInfo.processInfo.environment
        for name in ["GOOGLE_APPLICATION_CREDENTIALS", "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            environment[name] = nil
        }
        environment["FIREBASE_AUTH_EMULATOR_HOST"] = address
        environment["GOOGLE_CLOUD_PROJECT"] = projectID
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let script = root.appendingPathComponent("Tests/AdminSDK/admin_sdk_checks.py").path
        return try await Subprocess.run(try await python(), [script] + arguments, environment: environment, limit: .seconds(120))
    }
}
