import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Plain POSIX sockets, to send what no HTTP client would.
package enum RawTCP {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// Sends `bytes` and reads until the server closes. `halfClose`: the client ends its side first (the server's
    /// close then leaves no TIME_WAIT on the server); otherwise it waits for the server to close, as a browser does.
    package static func exchange(host: String, port: Int, bytes: [UInt8], halfClose: Bool = true) throws -> Data {
        let fd = try connect(host: host, port: port)
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if halfClose { shutdown(fd, Int32(SHUT_WR)) }
        return try readUntilClosed(fd)
    }

    /// A connected socket (IPv4, or IPv6 for a `host` with a colon, such as `::1`) whose reads give up after 60 s; the
    /// caller closes it. Only a server that never answers nor closes reaches that bound; it is that generous because on a
    /// loaded machine (a build, two CPU hogs and other suites beside the tests) a server's answer has taken over 10 s.
    package static func connect(host: String, port: Int) throws -> Int32 {
        let ipv6 = host.contains(":")
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = connect(fd, to: &address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            connected = connect(fd, to: &address)
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            throw Failure(description: "connect: \(error)")
        }
        return fd
    }

    private static func connect<Address>(_ fd: Int32, to address: inout Address) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    /// Everything received until the server closes the connection.
    ///
    /// - Throws: ``Failure`` if the server neither closes nor sends within the socket's 60 s read limit.
    package static func readUntilClosed(_ fd: Int32) throws -> Data {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return received }
            if count < 0 {
                if errno == ECONNRESET { return received }
                throw Failure(description: "the server kept the connection open (recv: \(errno)) after \(received.count) bytes")
            }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// A socket that listens but never accepts: connections succeed and then nothing is answered.
    package static func silentListener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "listen: \(errno)") }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// Whether this machine can listen on `::1` (containers without IPv6 cannot).
package enum IPv6Loopback {
    package static let isBindable: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }()
}
