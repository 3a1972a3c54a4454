// thread-limit-probe CGROUP: joins the pids cgroup at CGROUP (a folder of cgroup v1's pids hierarchy, or of v2),
// limits it to the tasks it holds, as systemd's TasksMax does to a service that has reached it, and reports what each
// of SystemSupport's ways to start a thread does then: an error of that call, never the end of the process. Then it
// lifts the limit and reports again. One line per step, on the main thread only (no dispatch or task needs a thread).
import CGLib
import Foundation
import SystemSupport

let cgroup = CommandLine.arguments[1]

func write(_ value: String, to file: String) {
    guard let handle = FileHandle(forWritingAtPath: "\(cgroup)/\(file)") else {
        print("cannot open \(cgroup)/\(file)")
        exit(2)
    }
    handle.write(Data(value.utf8))
    handle.closeFile()
}

func report(_ phase: String) {
    let ran = DispatchSemaphore(value: 0)
    do throws(OwnThreadFailure) {
        try OwnThread.detach(name: "probe") { ran.signal() }
        ran.wait()
        print("\(phase) thread: ran")
    } catch {
        print("\(phase) thread: \(error.explanation)")
    }
    let devNull = URL(fileURLWithPath: "/dev/null")
    do throws(SpawnFailure) {
        let child = try ChildProcess(["/bin/true"], stdin: devNull, stdout: devNull, stderr: devNull)
        print("\(phase) child: exited \(child.waitBlocking())")
    } catch {
        print("\(phase) child: \(error.description)")
    }
    do throws(OwnThreadFailure) {
        let fired = DispatchSemaphore(value: 0)
        _ = try DeadlineTimer.shared.schedule(after: .milliseconds(1)) { fired.signal() }
        fired.wait()
        print("\(phase) deadline: fired")
    } catch {
        print("\(phase) deadline: \(error.explanation)")
    }
    do throws(SessionBusCall.Failure) {
        let reply = try SessionBusCall.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", arguments: nil, replyType: "(s)",
            limit: .seconds(30))
        defer { g_variant_unref(reply) }
        print("\(phase) bus call: answered")
    } catch {
        print("\(phase) bus call: \(error.message)")
    }
}

write("\(getpid())", to: "cgroup.procs")
let current = (try? String(contentsOfFile: "\(cgroup)/pids.current", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "1"
write(current, to: "pids.max")
report("limited")
write("max", to: "pids.max")
report("lifted")
