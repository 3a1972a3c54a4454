import CSecret
import FoundationEssentials
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// The secret libsecret opens its file keyring with, measured: the Secret portal's `RetrieveSecret` (or libsecret's
/// test switch, `SECRET_FILE_TEST_PASSWORD`), asked once more by the store before it makes the file.
///
/// The portal writes the app's secret to a pipe it is handed and closes it; a refusal closes it empty. Only the length
/// is kept: the bytes are overwritten before the buffer is released.
enum PortalSecret {
    /// The secret's size in gnome-keyring's portal backend (`gkd-secret-portal.c`) and KWallet's
    /// (`kwalletportalsecrets.cpp`): 64 random bytes, as many as libsecret 0.20 reads (`PASSWORD_SIZE`).
    static let expectedLength = 64
    /// The most bytes read: enough to tell a longer secret from the expected one.
    static let readLimit = 4096

    /// How many bytes the secret is (up to ``readLimit``), or why that is not known, within `limit`. Blocks the thread.
    static func length(limit: Duration) -> Result<Int, SessionBusCall.Failure> {
        let environment = ProcessInfo.processInfo.environment
        if environment["SECRET_BACKEND"] == "file", let password = environment["SECRET_FILE_TEST_PASSWORD"], !password.isEmpty {
            return .success(password.utf8.count)  // libsecret takes the variable's bytes up to its end
        }
        let start = ContinuousClock.now
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            return .failure(SessionBusCall.Failure(kind: .other, message: "no pipe for the secret: \(String(cString: strerror(errno)))"))
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let readEnd = ends[0]
        defer { close(readEnd) }
        do throws(SessionBusCall.Failure) {
            // The write end travels in the message; ours is closed once it is sent, so that the portal's close ends the read.
            let descriptors = g_unix_fd_list_new()!
            defer { g_object_unref(UnsafeMutableRawPointer(descriptors)) }
            let index = g_unix_fd_list_append(descriptors, ends[1], nil)
            close(ends[1])
            guard index >= 0 else { throw SessionBusCall.Failure(kind: .other, message: "the pipe could not be passed") }
            let arguments = GVariantValues.tuple([g_variant_new_handle(index), GVariantValues.array(of: "{sv}", [])])
            let reply = try SessionBusCall.call(
                SecretPortalStore.portalName, SecretPortalStore.portalPath, SecretPortalStore.secretInterface, "RetrieveSecret",
                arguments: arguments, descriptors: OpaquePointer(descriptors), replyType: "(o)", limit: limit)
            g_variant_unref(reply)
        } catch {
            return .failure(error)
        }
        return read(readEnd, until: start + limit, limit: limit)
    }

    /// How many bytes arrive on `descriptor` before it is closed, up to ``readLimit``, by `deadline`.
    private static func read(_ descriptor: Int32, until deadline: ContinuousClock.Instant, limit: Duration) -> Result<Int, SessionBusCall.Failure> {
        var buffer = [UInt8](repeating: 0, count: readLimit + 1)
        defer { for index in buffer.indices { buffer[index] = 0 } }
        var count = 0
        while count < buffer.count {
            let remaining = deadline - .now
            guard remaining > .zero else {
                return .failure(SessionBusCall.Failure(kind: .timedOut, message: "the portal did not hand over the secret within \(limit.formattedSeconds)"))
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining.timerMilliseconds, 86_400_000)))
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(SessionBusCall.Failure(kind: .other, message: "poll failed: \(String(cString: strerror(errno)))"))
            }
            if ready == 0 { continue }
            let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failure(SessionBusCall.Failure(kind: .other, message: "read failed: \(String(cString: strerror(errno)))"))
            }
            if got == 0 { break }
            count += got
        }
        return .success(min(count, readLimit))
    }
}
