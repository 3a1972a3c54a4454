import CCurlLoader
import Foundation
import Synchronization
import SystemSupport

/// How `IdentityToolkitBackend` sends one request: a POST and its whole answer, within a time
/// limit. Every endpoint goes through ``post(to:headers:body:timeout:)``; the transport knows
/// nothing of Identity Toolkit. ``get(from:headers:timeout:)`` reads an OpenID Connect provider's
/// discovery document for the desktop sign-in.
protocol HTTPTransport: Sendable {
    func post(to url: URL, headers: [(String, String)], body: Data, timeout: Duration) async throws(HTTPTransportError) -> HTTPAnswer
    func get(from url: URL, headers: [(String, String)], timeout: Duration) async throws(HTTPTransportError) -> HTTPAnswer
}

/// An answer of any status.
struct HTTPAnswer: Sendable {
    let status: Int
    let body: Data
}

/// Why no answer came.
struct HTTPTransportError: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        /// The time limit passed.
        case timedOut
        /// The task was cancelled.
        case cancelled
        /// The host was not found or refused the connection.
        case cannotConnect
        /// The TLS handshake or the server's certificate failed.
        case tls
        /// libcurl is not installed.
        case unavailable
        /// The answer was longer than ``CurlTransport/maximumResponseBytes``.
        case tooLarge
        /// The host's addresses are not public, and the transport reaches public ones only (``ReachableAddresses/publicOnly``).
        case refusedAddress
        /// Anything else.
        case failed
    }

    let kind: Kind
    let message: String

    var description: String { message }
}

/// ``HTTPTransport`` through libcurl, which is loaded (`dlopen`) at the first request: a process
/// that never sends one does not load it, nor the TLS, Kerberos, LDAP and SSH libraries it
/// brings, and an app's binary links no libcurl (so `--static-swift-stdlib` builds need none).
///
/// HTTP and HTTPS only, no redirects, TLS peer and host verification on (libcurl's system CA
/// store). Each request blocks a thread of its own, never Swift's cooperative pool; cancelling
/// the task ends it within libcurl's progress interval. Finished curl handles are kept for the
/// next request, so that a connection to Google is reused as `URLSession` reused it.
///
/// Proxies: the environment's (`https_proxy`, `http_proxy`, `ALL_PROXY`, `NO_PROXY`, as libcurl reads
/// them) for Firebase and the identity providers, which corporate networks need; never for a loopback
/// host (the emulator, a provider in a test), whose plain HTTP must not leave the machine.
///
/// With ``ReachableAddresses/publicOnly`` (the broker's requests to hosts its callers name), every connection is
/// checked at the address it is made to, after name resolution, against this machine's interfaces as they are then
/// and the special-purpose blocks, and never goes through a proxy.
final class CurlTransport: HTTPTransport {
    /// The most of an answer that is read; Identity Toolkit's are a few kilobytes.
    static let maximumResponseBytes = 16 << 20
    /// How many idle handles (with their open connections) are kept.
    private static let keptHandles = 4

    private let idle = Mutex<[CurlExchange]>([])
    private let addresses: ReachableAddresses

    init(addresses: ReachableAddresses = .any) {
        self.addresses = addresses
    }

    func post(
        to url: URL, headers: [(String, String)], body: Data, timeout: Duration
    ) async throws(HTTPTransportError) -> HTTPAnswer {
        try await send(url, headers: headers, body: body, timeout: timeout)
    }

    func get(from url: URL, headers: [(String, String)], timeout: Duration) async throws(HTTPTransportError) -> HTTPAnswer {
        try await send(url, headers: headers, body: nil, timeout: timeout)
    }

    /// A POST of `body`, or a GET when it is `nil`.
    private func send(
        _ url: URL, headers: [(String, String)], body: Data?, timeout: Duration
    ) async throws(HTTPTransportError) -> HTTPAnswer {
        guard let exchange = idle.withLock({ $0.popLast() }) ?? CurlExchange() else {
            throw HTTPTransportError(kind: .failed, message: "out of memory for an HTTP request")
        }
        let request = CurlExchange.Request(
            url: url.absoluteString, headers: headers.map { "\($0.0): \($0.1)" }, body: body,
            timeoutMilliseconds: max(1, Int(timeout.inMilliseconds.rounded(.up))), direct: url.hasLoopbackHost,
            publicOnly: addresses == .publicOnly)
        let result = await withTaskCancellationHandler {
            do throws(OwnThreadFailure) {
                return try await OwnThread.run(name: "http-request") { exchange.perform(request) }
            } catch {
                return .failure(HTTPTransportError(kind: .failed, message: "the request was not sent: \(error.explanation)"))
            }
        } onCancel: {
            exchange.cancel()
        }
        // The cancellation handler can no longer run: the exchange may serve another request.
        exchange.reuse()
        idle.withLock { if $0.count < Self.keptHandles { $0.append(exchange) } }
        return try result.get()
    }
}

/// One curl handle and its last answer (`kra_http_exchange`).
///
/// `@unchecked Sendable`: one request uses it at a time (the transport takes it from its idle list
/// first); `cancel()`, the only call from another thread, is an atomic store in C.
private final class CurlExchange: @unchecked Sendable {
    struct Request: Sendable {
        let url: String
        let headers: [String]
        /// `nil` for a GET.
        let body: Data?
        let timeoutMilliseconds: Int
        /// Never through a proxy: the host is loopback, where plain HTTP (the emulator's) must stay on the machine.
        let direct: Bool
        /// Only public addresses are connected to.
        let publicOnly: Bool
    }

    private let pointer: OpaquePointer

    init?() {
        guard let pointer = kra_http_exchange_new() else { return nil }
        self.pointer = pointer
    }

    deinit { kra_http_exchange_free(pointer) }

    func cancel() { kra_http_exchange_cancel(pointer) }

    func reuse() { kra_http_exchange_reuse(pointer) }

    /// Sends the request and waits for the whole answer; blocks the calling thread.
    func perform(_ request: Request) -> Result<HTTPAnswer, HTTPTransportError> {
        let headers = request.headers.map { strdup($0) }
        defer { headers.forEach { free($0) } }
        let lines = headers.map { UnsafePointer($0) }
        kra_http_exchange_set_public_only(pointer, request.publicOnly ? 1 : 0)
        let outcome = lines.withUnsafeBufferPointer { lines in
            guard let body = request.body else {
                return kra_http_get(
                    pointer, request.url, lines.baseAddress, lines.count, request.timeoutMilliseconds, CurlTransport.maximumResponseBytes,
                    request.direct ? 1 : 0)
            }
            return body.withUnsafeBytes { body in
                kra_http_post(
                    pointer, request.url, lines.baseAddress, lines.count, body.baseAddress, body.count,
                    request.timeoutMilliseconds, CurlTransport.maximumResponseBytes, request.direct ? 1 : 0)
            }
        }
        let message = String(cString: kra_http_error(pointer))
        let kind: HTTPTransportError.Kind
        switch outcome {
        case KRA_HTTP_OK:
            var length = 0
            let bytes = kra_http_body(pointer, &length)
            let body = bytes.map { Data(bytes: $0, count: length) } ?? Data()
            return .success(HTTPAnswer(status: kra_http_status(pointer), body: body))
        case KRA_HTTP_TIMED_OUT: kind = .timedOut
        case KRA_HTTP_CANCELLED: kind = .cancelled
        case KRA_HTTP_CANNOT_CONNECT: kind = .cannotConnect
        case KRA_HTTP_TLS: kind = .tls
        case KRA_HTTP_NO_LIBCURL: kind = .unavailable
        case KRA_HTTP_TOO_LARGE: kind = .tooLarge
        case KRA_HTTP_REFUSED_ADDRESS: kind = .refusedAddress
        default: kind = .failed
        }
        return .failure(HTTPTransportError(kind: kind, message: message))
    }
}

extension URL {
    /// Whether the host is this machine's loopback: `localhost`, an address of 127.0.0.0/8, or `::1`.
    package var hasLoopbackHost: Bool {
        guard var host = host?.lowercased() else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
