import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Stops accepting for a while when accepting fails for want of resources (out of file
/// descriptors: EMFILE, ENFILE; of kernel memory: ENOBUFS, ENOMEM), then tries again.
///
/// Connections waiting in the backlog keep the listening socket readable, so without a pause the
/// event loop retries at once, forever, at 100 % CPU. NIO's `AcceptBackoffHandler` is not enough
/// here: it delays the next read, but a `ServerSocketChannel` whose accept failed before any
/// succeeded stays registered for reading (swift-nio 2.101), so only the first failure backs off.
/// Turning `autoRead` off unregisters the socket; turning it back on after the pause reads again.
final class AcceptBackoff: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private static let exhausted: Set<Int32> = [EMFILE, ENFILE, ENOBUFS, ENOMEM]

    private let pause: TimeAmount
    private let logger: Logger
    private var resumption: Scheduled<Void>?
    /// Whether this shortage was logged; cleared by the next accepted connection.
    private var warned = false

    init(pause: TimeAmount, logger: Logger) {
        self.pause = pause
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        warned = false
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let ioError = error as? IOError, Self.exhausted.contains(ioError.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        if !warned {
            warned = true
            logger.warning("\(Self.warning(ioError, pause: pause))")
        }
        guard resumption == nil, let options = context.channel.syncOptions else { return }
        try? options.setOption(ChannelOptions.autoRead, value: false)
        resumption = context.eventLoop.assumeIsolated().scheduleTask(in: pause) {
            self.resumption = nil
            try? options.setOption(ChannelOptions.autoRead, value: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resumption?.cancel()
        resumption = nil
        context.fireChannelInactive()
    }

    private static func warning(_ error: IOError, pause: TimeAmount) -> String {
        "The Auth emulator cannot accept connections (\(String(cString: strerror(error.errnoCode)))); it tries again every "
            + "\(pause.nanoseconds / 1_000_000) ms until some close. Raise the descriptor limit (ulimit -n) or lower "
            + "--max-connections."
    }
}
