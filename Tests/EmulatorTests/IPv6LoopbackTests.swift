import Foundation
import KeyringAuth
import KeyringAuthEmulator
import KeyringTestSupport
import SecretKeychain
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The emulator on IPv6 loopback and the client reaching it by every way an app names it:
/// `FIREBASE_AUTH_EMULATOR_HOST=[::1]:PORT` (what `keyring-auth emulator --host ::1` prints) and
/// `useEmulator(withHost:port:)` with a bare or a bracketed address.
@Suite(.enabled(if: IPv6Loopback.isBindable, "this machine has no IPv6 loopback: ::1 cannot be bound"))
struct IPv6LoopbackTests {
    @Test func theClientReachesAnEmulatorOnIPv6Loopback() async throws {
        let emulator = AuthEmulator(configuration: .init(host: "::1", port: 0, logger: EmulatorFixture.quietLogger))
        let address = try await emulator.start()
        #expect(address.description == "[::1]:\(address.port)", "the form FIREBASE_AUTH_EMULATOR_HOST takes")

        let fromVariable = IdentityToolkitBackend(apiKey: "k", environment: ["FIREBASE_AUTH_EMULATOR_HOST": "\(address)"])
        let signedUp = try await fromVariable.signUpAnonymously(tenantID: nil)

        var uids = [signedUp.uid]
        for host in ["::1", "[::1]"] {
            let options = AuthAppOptions(appName: "ipv6", apiKey: "k", appID: "1:42:linux:ipv6", projectID: "demo-keyring-auth")
            let auth = Auth(configuration: AuthConfiguration(options: options, store: InMemoryStore()))
            auth.useEmulator(withHost: host, port: address.port)
            uids.append(try await auth.signInAnonymously().user.uid)
        }
        #expect(emulator.accounts.map(\.localId) == uids)
        await emulator.stop()
    }

    @Test func aBracketedHostIsTheSameAddress() async throws {
        let emulator = AuthEmulator(configuration: .init(host: "[::1]", port: 0, logger: EmulatorFixture.quietLogger))
        let address = try await emulator.start()
        #expect(address.host == "::1" && address.description == "[::1]:\(address.port)")
        await emulator.stop()
    }

    // MARK: The transport for IPv6 addresses

    @Test func nothingListeningIsANetworkError() async throws {
        let emulator = AuthEmulator(configuration: .init(host: "::1", port: 0, logger: EmulatorFixture.quietLogger))
        let address = try await emulator.start()
        await emulator.stop()
        let backend = IdentityToolkitBackend(apiKey: "k", endpoint: try .emulator(hostAndPort: "\(address)"))
        do {
            _ = try await backend.signUpAnonymously(tenantID: nil)
            Issue.record("nothing listens, yet it answered")
        } catch {
            #expect(error.code == .networkError && error.message.contains("Cannot reach"), "\(error)")
        }
    }

    @Test func aSilentServerIsATimeoutAndACancelledRequestEnds() async throws {
        let silent = try Self.silentListener()
        defer { close(silent.fd) }
        let quick = IdentityToolkitBackend(apiKey: "k", endpoint: try .emulator(host: "::1", port: silent.port), requestTimeout: .seconds(1))
        do {
            _ = try await quick.signUpAnonymously(tenantID: nil)
            Issue.record("a silent server answered")
        } catch {
            #expect(error.code == .networkError && error.message.contains("did not answer"), "\(error)")
        }

        let patient = IdentityToolkitBackend(apiKey: "k", endpoint: try .emulator(host: "::1", port: silent.port), requestTimeout: .seconds(60))
        let request = Task { try await patient.signUpAnonymously(tenantID: nil) }
        request.cancel()
        do {
            _ = try await request.value
            Issue.record("a silent server answered")
        } catch let error as AuthError {
            #expect(error.code == .networkError && error.message.contains("cancelled"), "\(error)")
        }
    }

    /// A socket on `::1` that listens but never accepts: connections succeed and nothing is answered.
    private static func silentListener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw RawTCP.Failure(description: "listen on ::1: \(errno)") }
        return (fd, Int(UInt16(bigEndian: address.sin6_port)))
    }
}
