internal import CGLib

extension SessionBusCall {
    /// One method call of ``callTogether(_:limit:)``.
    package struct Call {
        package var destination: String
        package var path: String
        package var interface: String
        package var method: String
        /// The arguments' tuple, floating (consumed, also when the call is not made), or `nil` for none.
        package var arguments: OpaquePointer?
        /// The reply's type, for example `(v)`; GDBus refuses any other.
        package var replyType: String

        package init(
            _ destination: String, _ path: String, _ interface: String, _ method: String, arguments: OpaquePointer?, replyType: String
        ) {
            self.destination = destination
            self.path = path
            self.interface = interface
            self.method = method
            self.arguments = arguments
            self.replyType = replyType
        }
    }

    /// Sends every call at once on the shared session connection and waits for all their answers: the calls cost one
    /// round trip together instead of one each. Each reply (a tuple `GVariant` the caller unrefs with `g_variant_unref`)
    /// or failure in the order of `calls`; all of them fail alike when there is no bus.
    ///
    /// - Parameters:
    ///   - calls: The calls, sent in this order (the bus answers its own in order; other peers when they do).
    ///   - limit: How long to wait for the bus, and then for every answer.
    package static func callTogether(_ calls: [Call], limit: Duration) -> [Result<OpaquePointer, Failure>] {
        var arguments: [OpaquePointer?] = calls.map { $0.arguments.flatMap { g_variant_ref_sink($0) } }  // owned here until sent
        defer { for case let argument? in arguments { g_variant_unref(argument) } }
        let failAll = { (failure: Failure) in calls.map { _ in Result<OpaquePointer, Failure>.failure(failure) } }
        let bus: OpaquePointer
        let deadline: CancellableDeadline
        let context: OpaquePointer
        do throws(Failure) {
            bus = try connection(limit: limit)
            do throws(OwnThreadFailure) {
                deadline = try CancellableDeadline(limit: limit)
            } catch {
                g_object_unref(UnsafeMutableRawPointer(bus))
                throw Failure(kind: .other, message: "the calls were not made: \(error.explanation)")
            }
            do throws(DescriptorShortage) {
                context = try MainContexts.make()
            } catch {
                g_object_unref(UnsafeMutableRawPointer(bus))
                throw Failure(kind: .other, message: "the calls were not made: \(error.explanation)")
            }
        } catch {
            return failAll(error)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        defer { g_main_context_unref(context) }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }

        let answers = Answers(count: calls.count)
        let milliseconds = Int32(min(limit.timerMilliseconds, 86_400_000))
        for (index, call) in calls.enumerated() {
            let type = g_variant_type_new(call.replyType)
            defer { g_variant_type_free(type) }
            // The callback releases the slot's reference; it runs in `context`, iterated below until every call has answered.
            let slot = Unmanaged.passRetained(Slot(answers: answers, index: index)).toOpaque()
            g_dbus_connection_call(
                bus, call.destination, call.path, call.interface, call.method, arguments[index], type, G_DBUS_CALL_FLAGS_NONE,
                milliseconds, UnsafeMutablePointer<GCancellable>(deadline.cancellable),
                { source, result, slot in
                    let slot = Unmanaged<Slot>.fromOpaque(slot!).takeRetainedValue()
                    var error: UnsafeMutablePointer<GError>?
                    let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                    slot.answers.replies[slot.index] = reply
                    slot.answers.errors[slot.index] = error
                    slot.answers.remaining -= 1
                }, slot)
            if let argument = arguments[index] {
                g_variant_unref(argument)
                arguments[index] = nil
            }
        }
        while answers.remaining > 0 { g_main_context_iteration(context, 1) }
        withExtendedLifetime(deadline) {}  // the cancellable lives until every call has returned

        return (0..<calls.count).map { index in
            if let reply = answers.replies[index] { return .success(reply) }
            guard let error = answers.errors[index] else { return .failure(Failure(kind: .other, message: "no answer and no error")) }
            defer { g_error_free(error) }
            return .failure(failure(error, expired: deadline.hasExpired, limit: limit, noBus: false))
        }
    }

    /// Releases the replies among `answers`.
    package static func release(_ answers: [Result<OpaquePointer, Failure>]) {
        for case .success(let reply) in answers { g_variant_unref(reply) }
    }

    /// The answers of ``callTogether(_:limit:)``, filled in on the calling thread as its main context runs the callbacks.
    private final class Answers {
        var replies: [OpaquePointer?]
        var errors: [UnsafeMutablePointer<GError>?]
        var remaining: Int

        init(count: Int) {
            replies = Array(repeating: nil, count: count)
            errors = Array(repeating: nil, count: count)
            remaining = count
        }
    }

    private final class Slot {
        let answers: Answers
        let index: Int

        init(answers: Answers, index: Int) {
            self.answers = answers
            self.index = index
        }
    }
}
