import Foundation
import Synchronization
import SystemSupport
import Testing

/// The one way off the cooperative pool: a named thread of its own that resumes its caller.
@Suite struct OwnThreadTests {
    @Test func aRunHappensOnANamedThreadOffThePoolAndResumesTheCaller() async throws {
        let (name, isMain) = try await OwnThread.run(name: "own-thread-test") { () -> (String, Bool) in
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            return (comm.trimmingCharacters(in: .whitespacesAndNewlines), Thread.isMainThread)
        }
        #expect(name == "own-thread-test")
        #expect(!isMain)
    }

    @Test func aNameLongerThanTheKernelKeepsIsCutTo15Bytes() async throws {
        let name = try await OwnThread.run(name: "a-name-longer-than-fifteen") {
            ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
        }
        #expect(name == "a-name-longer-t")
    }

    @Test func aStartedThreadHasDoneItsWorkOnceJoined() throws {
        let done = Mutex(false)
        let handle = try OwnThread.start(name: "joined") { done.withLock { $0 = true } }
        #expect(!handle.isCurrent)
        handle.join()
        #expect(done.withLock { $0 })
    }
}
