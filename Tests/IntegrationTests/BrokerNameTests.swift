import Foundation
import KeyringTestSupport
import Subprocesses
import SystemSupport
import Testing

extension KeyringTests.Broker {
    /// A connection queued for the broker's name (as an app given `--own-name` can queue) never receives it: the idle
    /// broker keeps the name, says who waits, and looks again at each idle time; `keyring-auth doctor` names the queued
    /// connection; once it has left, the broker gives the name back and exits.
    @Test func anIdleBrokerKeepsItsNameWhileAnotherConnectionIsQueuedForIt() async throws {
        let fixture = try await BrokerFixture.start()
        let host = fixture.address.description
        let (launcher, log) = try fixture.loggingLauncher()
        try await fixture.installService(idleTimeout: 1, emulatorHost: host, arguments: ["--verbose"], launcher: launcher)
        // A watching client keeps the broker from going idle until the queuer waits.
        let client = try await fixture.python(as: nil)
        #expect(try await fixture.ask(client, "watch") == "ok")
        let pid = try #require(try await fixture.brokerPID())
        let brokerLog = try LineChannel(["tail", "-n", "+1", "-F", log])
        let queuer = try LineChannel(["/usr/bin/python3", "-c", Self.nameQueuer, BrokerFixture.name])
        let queued = try await queuer.nextLine(within: .seconds(60))
        #expect(queued.hasPrefix("queued :"), "\(queued): \(queuer.standardError)")
        let queuerName = String(queued.dropFirst("queued ".count))
        // The activation file as installed (without the log), the one doctor compares the running broker with.
        try await fixture.installService(idleTimeout: 1, emulatorHost: host, arguments: ["--verbose"])
        #expect(try await fixture.ask(client, "unwatch") == "ok")

        // The broker's warning is the event: it went idle and kept the name, naming the connection that waits; and again
        // at the next idle time.
        for _ in 0..<2 {
            let kept = try await brokerLog.nextLine(within: .seconds(60)) { $0.contains("Idle, but keeping the name") }
            #expect(kept.contains(queuerName), "\(kept)")
            #expect(try await fixture.brokerPID() == pid, "the broker still owns its name after going idle")
        }

        let doctor = try await Subprocess.run(try Harness.product("keyring-auth"), ["doctor"], limit: .seconds(60))
        let lines = doctor.output.split(separator: "\n").map(String.init)
        let owner = lines.first { $0.contains(" broker: ") } ?? ""
        #expect(owner.hasPrefix("ok   broker: ") && owner.contains("pid \(pid)") && owner.contains("the installed broker"), "\(doctor.output)")
        let queue = lines.first { $0.contains(" broker queue: ") } ?? ""
        #expect(queue.hasPrefix("FAIL broker queue: ") && queue.contains(queuerName) && queue.contains("pid \(queuer.child.pid)"), "\(doctor.output)")
        #expect(lines.contains { $0.contains("fix: ") && $0.contains("--own-name=\(BrokerFixture.name)") }, "\(doctor.output)")
        #expect(doctor.status == 4, "another connection waiting for the broker's name is a problem doctor reports: \(doctor.output)")

        // The queued connection leaves: at the next idle time the broker gives its name back and exits, never having
        // handed it on.
        #expect(await queuer.finish() == 0, "\(queuer.standardError)")
        #expect(!queuer.lines.queued.contains("acquired"), "the queued connection never received the name")
        _ = try await brokerLog.nextLine(within: .seconds(60)) { $0.contains("Idle: giving the name back") }
        let exited = try await Subprocess.run("sh", ["-c", "while kill -0 \(pid) 2>/dev/null; do sleep 0.05; done"], limit: .seconds(60))
        try exited.requireSuccess("waiting for the idle broker to exit")
        #expect(await client.finish() == 0, "\(client.standardError)")
        brokerLog.child.send(SIGTERM)
    }

    /// Another program that holds the broker's name before it starts: the broker refuses to start (it never queues
    /// behind it), naming that program, and `keyring-auth doctor` says that the name's owner is not the installed broker.
    @Test func anotherProgramOnTheBrokersNameIsReportedAndNotQueuedBehind() async throws {
        let fixture = try await BrokerFixture.start()
        let squatter = try LineChannel(["/usr/bin/python3", "-c", Self.nameQueuer, BrokerFixture.name])
        let owned = try await squatter.nextLine(within: .seconds(60))
        #expect(owned.hasPrefix("owner :"), "\(owned): \(squatter.standardError)")

        let doctor = try await Subprocess.run(try Harness.product("keyring-auth"), ["doctor"], limit: .seconds(60))
        let installed = try Harness.product("keyring-auth-broker")
        let line = doctor.output.split(separator: "\n").first { $0.contains(" broker: ") }.map(String.init) ?? ""
        #expect(line.hasPrefix("FAIL broker: ") && line.contains("pid \(squatter.child.pid)") && line.contains("python3")
            && line.contains("not by the installed broker \(installed)"), "\(doctor.output)")
        #expect(doctor.status == 4, "\(doctor.output)")
        #expect(doctor.output.contains("The keyring works, but another program holds or waits for the broker's name"), "\(doctor.output)")

        let start = try await Subprocess.run(try Harness.product("keyring-auth-broker"), ["--idle-timeout", "1"], limit: .seconds(60))
        #expect(start.status == 1)
        #expect(start.standardError.contains("\(BrokerFixture.name) is owned by another process (pid \(squatter.child.pid), "), "\(start.standardError)")
        #expect(try await fixture.brokerPID() == squatter.child.pid)
        #expect(await squatter.finish() == 0, "\(squatter.standardError)")
    }

    /// Asks the bus for the name in `argv[1]` as an app allowed to own it would, queueing when it is taken (flags 0):
    /// prints `owner UNIQUE-NAME` or `queued UNIQUE-NAME`, then `acquired` should the name come to it, and leaves the
    /// bus when its standard input ends.
    static let nameQueuer = """
        import sys
        from gi.repository import Gio, GLib
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        bus.signal_subscribe("org.freedesktop.DBus", "org.freedesktop.DBus", "NameAcquired", "/org/freedesktop/DBus",
                             sys.argv[1], Gio.DBusSignalFlags.NONE, lambda *_: print("acquired", flush=True))
        reply = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                              GLib.Variant("(su)", (sys.argv[1], 0)), GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, -1, None)
        print({1: "owner", 2: "queued"}.get(reply.unpack()[0], "refused"), bus.get_unique_name(), flush=True)
        loop = GLib.MainLoop()
        GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP,
                          lambda *_: loop.quit())
        loop.run()
        """
}
