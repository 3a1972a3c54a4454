import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Collects one HTTP request at a time (the body bounded), hands it to the service and writes the
/// answer. A body over the limit is answered with 413 and the connection closed, without reading on.
final class EmulatorHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let service: EmulatorService
    private let hosts: HostHeaderPolicy
    private let maximumBodyBytes: Int
    private let logger: Logger
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// Set once a 413 was sent: the rest of the connection is ignored until it closes.
    private var refused = false

    init(service: EmulatorService, hosts: HostHeaderPolicy, maximumBodyBytes: Int, logger: Logger) {
        self.service = service
        self.hosts = hosts
        self.maximumBodyBytes = maximumBodyBytes
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > maximumBodyBytes {
                refuseOversized(head, context: context)
            }
        case .body(var chunk):
            guard let head else { return }
            if body.readableBytes + chunk.readableBytes > maximumBodyBytes {
                refuseOversized(head, context: context)
            } else {
                body.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let request = EmulatorRequest(
                method: head.method.rawValue, target: head.uri, headers: headers, body: Data(body.readableBytesView))
            body.clear()
            let response = hosts.accepts(headers["host"]) ? service.handle(request) : EmulatorFailure(
                "PERMISSION_DENIED : The emulator answers only requests addressed to this machine (Host localhost, "
                    + "127.0.0.1 or ::1), so that a web page cannot reach it through its own name.", status: 403,
                grpcStatus: "PERMISSION_DENIED"
            ).response()
            logger.debug("\(request.method) \(request.path)", metadata: ["status": "\(response.status)"])
            write(response, to: head, keepAlive: head.isKeepAlive, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("Connection closed after an error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    private func refuseOversized(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        refused = true
        self.head = nil
        body.clear()
        let failure = EmulatorFailure(
            "PAYLOAD_TOO_LARGE : Request bodies are limited to \(maximumBodyBytes) bytes.", status: 413,
            grpcStatus: "INVALID_ARGUMENT")
        logger.debug("\(head.method.rawValue) \(head.uri) refused", metadata: ["status": "413"])
        write(failure.response(), to: head, keepAlive: false, context: context)
    }

    private func write(_ response: EmulatorResponse, to head: HTTPRequestHead, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(response.body.count))
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        for header in response.headers { headers.add(name: header.name, value: header.value) }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
