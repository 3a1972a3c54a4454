import Logging
import NIOCore
import Synchronization

/// Closes a connection once ``IdleStateHandler`` reports that nothing was read or written for the idle timeout.
final class IdleConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}

/// On the listening socket, in the order connections are accepted: admits a connection while fewer
/// than the limit are open, and closes it at once otherwise.
final class ConnectionLimiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let connections: OpenConnections

    init(connections: OpenConnections) {
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let accepted = unwrapInboundIn(data)
        guard connections.admit(accepted) else {
            accepted.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}

/// The server's open client connections, at most `limit` of them.
final class OpenConnections: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Whether the refusals since the count last reached the limit were logged.
        var warned = false
    }

    let limit: Int
    private let logger: Logger
    private let state = Mutex(State())

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    /// Adds `channel` unless `limit` connections are open; returns whether it was added. The first
    /// refusal after the count reaches the limit is logged as a warning, later ones at debug level.
    func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let (admitted, warn) = state.withLock { state -> (Bool, Bool) in
            guard state.channels.count < limit else {
                defer { state.warned = true }
                return (false, !state.warned)
            }
            state.channels[id] = channel
            return (true, false)
        }
        guard admitted else {
            if warn {
                let warning = "The Auth emulator has \(limit) open connections, its limit: it closes new ones until some "
                    + "close (raise it with --max-connections or Configuration.maximumConnections)."
                logger.warning("\(warning)")
            } else {
                logger.debug("Connection refused over the limit", metadata: ["limit": "\(limit)"])
            }
            return false
        }
        channel.closeFuture.whenComplete { [weak self, limit] _ in
            self?.state.withLock { state in
                state.channels.removeValue(forKey: id)
                if state.channels.count < limit { state.warned = false }
            }
        }
        return true
    }

    var all: [any Channel] { state.withLock { Array($0.channels.values) } }
}
