import Foundation
import CSecret
import KeyringTestSupport
import Testing

@testable import SecretKeychain
@testable import SystemSupport

extension KeyringTests {
    /// Questions sent to the session bus together (what a sandboxed store choice asks in one round trip): each answer
    /// or failure in its own place, and the Secret Service's reachability read from them.
    @Suite struct SessionBusTogether {
        @Test func eachCallGetsItsOwnAnswerOrFailureInOrder() throws {
            _ = try Harness.require()
            let daemon = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
            let answers = SessionBusCall.callTogether(
                [
                    SessionBusCall.Call(
                        daemon.0, daemon.1, daemon.2, "GetNameOwner", arguments: GVariantValues.tuple([g_variant_new_string("org.example.Nobody")]),
                        replyType: "(s)"),
                    SessionBusCall.Call(
                        daemon.0, daemon.1, daemon.2, "NameHasOwner", arguments: GVariantValues.tuple([g_variant_new_string("org.freedesktop.secrets")]),
                        replyType: "(b)"),
                    SessionBusCall.Call(daemon.0, daemon.1, daemon.2, "NoSuchMethod", arguments: nil, replyType: "()"),
                ], limit: .seconds(10))
            defer { SessionBusCall.release(answers) }
            #expect(answers.count == 3)
            guard case .failure(let nobody) = answers[0] else { Issue.record("GetNameOwner of an unowned name answered"); return }
            #expect(nobody.kind == .remote("org.freedesktop.DBus.Error.NameHasNoOwner") && nobody.isServiceUnknown)
            guard case .success(let owned) = answers[1] else { Issue.record("NameHasOwner failed: \(answers[1])"); return }
            #expect(GVariantValues.bool(at: 0, of: owned))
            guard case .failure(let unknown) = answers[2] else { Issue.record("an unknown method answered"); return }
            #expect(unknown.kind == .remote("org.freedesktop.DBus.Error.UnknownMethod"))
        }

        @Test func theSecretServiceIsReachableOnTheHost() throws {
            _ = try Harness.require()
            #expect(SecretServiceStore().secretServiceIsReachable())
            let hidden = [Result<OpaquePointer, SessionBusCall.Failure>](
                repeating: .failure(SessionBusCall.Failure(kind: .remote("org.freedesktop.DBus.Error.ServiceUnknown"), message: "hidden")),
                count: 2)
            #expect(!SecretServiceStore.isReachable(hidden))
        }
    }
}
