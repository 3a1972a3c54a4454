import Foundation
import Synchronization
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for GitHub's device flow on 127.0.0.1 (`POST /login/device/code`, then `POST /login/oauth/access_token`
/// polled): each token request is answered with the next of ``answers`` (`authorization_pending`, `slow_down`, an
/// error, or `"token"` for the token), the last one again once they run out, or not at all with ``silent``. The token
/// it gives is the JSON claims Firebase's Auth emulator takes as a GitHub access token.
package final class FakeGitHub: Sendable {
    /// What a token request answers.
    package enum Answer: Sendable {
        case pending
        case slowDown(interval: Int?)
        case error(String)
        case token
        /// Never answered (the connection is held until the fake stops).
        case silent
        /// An answer that is not JSON.
        case malformed
    }

    package let port: Int
    package let user: [String: String]
    /// One event per token request, as it arrives.
    package let polls = Mailbox<Void>()
    private let listener: Int32
    private let state: Mutex<(answers: [Answer], codeRequests: [[String: String]], tokenRequests: [[String: String]], held: [Int32])>
    /// While set, device-code requests are held unanswered (``holdingCodes``) until ``answerHeldCodes()``.
    private let codes = Mutex<(holding: Bool, heldNext: Bool, held: [Int32])>((false, false, []))
    /// One event per device-code request, once it is answered or held.
    package let codeArrivals = Mailbox<Void>()

    /// Serves on a free port of 127.0.0.1 until ``stop()``; the device code's interval is `interval` seconds, and
    /// the code request itself is answered with `codeError` when given.
    package init(user: [String: String], answers: [Answer], interval: Int = 0, codeError: String? = nil) throws {
        self.user = user
        state = Mutex((answers, [], [], []))
        let (fd, port) = try RawTCP.silentListener()
        listener = fd
        self.port = port
        try OwnThread.detach(name: "fake-github") { [self] in serve(interval: interval, codeError: codeError) }
    }

    package var base: URL { URL(string: "http://127.0.0.1:\(port)")! }
    package var codeRequests: [[String: String]] { state.withLock { $0.codeRequests } }
    package var tokenRequests: [[String: String]] { state.withLock { $0.tokenRequests } }

    /// Whether device-code requests are held unanswered from now on.
    package var holdingCodes: Bool {
        get { codes.withLock { $0.holding } }
        set { codes.withLock { $0.holding = newValue } }
    }

    /// Answers every device-code request held so far, and holds no more.
    package func answerHeldCodes() {
        let held = codes.withLock { codes in
            codes.holding = false
            defer { codes.held = [] }
            return codes.held
        }
        for connection in held {
            let response = Self.codeResponse(base: base, interval: 0)
            _ = Array(response.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(connection, Int32(SHUT_WR))
            close(connection)
        }
    }

    private static func codeResponse(base: URL, interval: Int) -> String {
        FakeOAuthProvider.response("200 OK", json: [
            "device_code": "device-\(UUID().uuidString)", "user_code": "ABCD-1234", "verification_uri": "\(base.absoluteString)/login/device",
            "expires_in": 900, "interval": interval,
        ])
    }

    /// Stops serving, and lets go of held connections.
    package func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        state.withLock { $0.held.forEach { shutdown($0, Int32(SHUT_RDWR)) } }
        codes.withLock { $0.held.forEach { shutdown($0, Int32(SHUT_RDWR)) } }
    }

    private func serve(interval: Int, codeError: String?) {
        let hold: @Sendable (Int32) -> Void = { [self] connection in
            let code = codes.withLock { codes in
                defer { codes.heldNext = false }
                if codes.heldNext { codes.held.append(connection) }
                return codes.heldNext
            }
            if code { codeArrivals.post(()) } else { state.withLock { $0.held.append(connection) } }
        }
        FakeOAuthProvider.serve(listener, hold: hold) { [self] head, body in
            let fields = FakeOAuthProvider.form(body)
            if head.hasPrefix("POST /login/device/code ") {
                state.withLock { $0.codeRequests.append(fields) }
                // A held request is announced once it is held (below, in `hold`).
                if codes.withLock({ codes in codes.heldNext = codes.holding; return codes.holding }) { return nil }
                codeArrivals.post(())
                return codeError.map { FakeOAuthProvider.response("200 OK", json: ["error": $0]) } ?? Self.codeResponse(base: base, interval: interval)
            }
            guard head.hasPrefix("POST /login/oauth/access_token ") else {
                return FakeOAuthProvider.response("404 Not Found", json: ["error": "not_found"])
            }
            let answer = state.withLock { state -> Answer in
                state.tokenRequests.append(fields)
                return state.answers.count > 1 ? state.answers.removeFirst() : state.answers.first ?? .token
            }
            polls.post(())
            switch answer {
            case .pending: return FakeOAuthProvider.response("200 OK", json: ["error": "authorization_pending"])
            case .slowDown(let interval):
                var json: [String: Any] = ["error": "slow_down"]
                json["interval"] = interval
                return FakeOAuthProvider.response("200 OK", json: json)
            case .error(let name): return FakeOAuthProvider.response("200 OK", json: ["error": name])
            case .token:
                let token = String(decoding: try! JSONSerialization.data(withJSONObject: user, options: [.sortedKeys]), as: UTF8.self)
                return FakeOAuthProvider.response("200 OK", json: ["access_token": token, "token_type": "bearer", "scope": "read:user"])
            case .silent: return nil
            case .malformed: return "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9\r\nConnection: close\r\n\r\n<html>oops"
            }
        }
    }
}
