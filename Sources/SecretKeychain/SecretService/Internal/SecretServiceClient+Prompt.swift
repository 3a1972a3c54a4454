import CSecret
import SystemSupport

extension SecretServiceClient {
    /// Deletes the item at `path` with the Secret Service's own `Item.Delete`, and runs the prompt
    /// the provider may answer with, all within the call's limit.
    ///
    /// Not libsecret's delete: when a prompt is cancelled (our deadline), libsecret dismisses it and
    /// then waits for its `Completed` signal with no limit, and KeePassXC 2.7, whose every delete is
    /// a prompt, may never send it (a dialog nobody answers headless); the store's thread was seen
    /// blocked there for good.
    ///
    /// - Throws: `.expired` when the item or its prompt gave no answer in time (the prompt is then
    ///   dismissed), `.keychain(.underlying)` when the prompt was dismissed.
    func deleteItem(at path: String) throws(SecretServiceFailure) {
        let start = ContinuousClock.now
        let reply = try callProvider(
            .deleteItem, path: path, interface: "org.freedesktop.Secret.Item", method: "Delete", arguments: nil,
            replyType: "(o)")
        defer { g_variant_unref(reply) }
        let prompt = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(prompt) }
        let promptPath = GLib.string(of: prompt)
        guard promptPath != "/" else { return }
        let result = try runPrompt(promptPath, call: .deleteItem, startedAt: start)
        result.map { g_variant_unref($0) }
    }

    /// Runs the prompt at `path` (`Prompt("")`, then waits for its `Completed` signal) on a main
    /// context of its own, within what is left of the client's limit for a call that started at
    /// `start`; dismisses it when time runs out, without waiting.
    ///
    /// - Returns: The prompt's result (the value inside `Completed`'s variant), which the caller
    ///   releases with `g_variant_unref`; `nil` when there was none.
    func runPrompt(
        _ path: String, call: SecretServiceCall, startedAt start: ContinuousClock.Instant
    ) throws(SecretServiceFailure) -> OpaquePointer? {
        let deadline = start + self.limit
        let limit = max(.zero, deadline - .now)
        let context: OpaquePointer
        do throws(KeychainError) { context = try MainContexts.forKeychain() } catch { throw .keychain(error) }
        defer { g_main_context_unref(context) }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }

        let outcome = PromptOutcome()
        // Subscribed before Prompt is called, so that a Completed sent at once is not missed; the
        // prompt's path is unique to this call, so no sender is named.
        let subscription = g_dbus_connection_signal_subscribe(
            connection, nil, "org.freedesktop.Secret.Prompt", "Completed", path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, outcome in
                guard let outcome else { return }
                let state = Unmanaged<PromptOutcome>.fromOpaque(outcome).takeUnretainedValue()
                state.completed = true
                if let parameters, GVariantValues.hasType(parameters, "(bv)") {
                    let dismissed = g_variant_get_child_value(parameters, 0)!
                    defer { g_variant_unref(dismissed) }
                    state.dismissed = g_variant_get_boolean(dismissed) != 0
                    let boxed = g_variant_get_child_value(parameters, 1)!
                    defer { g_variant_unref(boxed) }
                    state.result.map { g_variant_unref($0) }
                    state.result = g_variant_get_variant(boxed)
                }
            }, Unmanaged.passRetained(outcome).toOpaque(), { Unmanaged<PromptOutcome>.fromOpaque($0!).release() })
        defer {
            g_dbus_connection_signal_unsubscribe(connection, subscription)
            while g_main_context_iteration(context, 0) != 0 {}
        }

        // The window ID: none (we have no window).
        g_variant_unref(try callProvider(
            call, path: path, interface: "org.freedesktop.Secret.Prompt", method: "Prompt",
            arguments: GVariantValues.tuple([g_variant_new_string("")]), replyType: "()", limit: limit))

        while !outcome.completed, ContinuousClock.now < deadline {
            let timer = g_timeout_source_new((deadline - .now).timerMilliseconds)!
            g_source_set_callback(timer, { _ in 0 }, nil, nil)
            g_source_attach(timer, context)
            g_main_context_iteration(context, 1)
            g_source_destroy(timer)
            g_source_unref(timer)
        }
        guard outcome.completed else {
            g_dbus_connection_call(
                connection, Self.busName, path, "org.freedesktop.Secret.Prompt", "Dismiss", nil, nil,
                G_DBUS_CALL_FLAGS_NONE, -1, nil, nil, nil)
            throw .expired(call: call, limit: limit)
        }
        if outcome.dismissed {
            throw .keychain(.underlying(
                domain: "SecretKeychain", code: 0, message: "the provider's prompt for \(call.rawValue) was dismissed"))
        }
        defer { outcome.result = nil }
        return outcome.result
    }
}

/// What a prompt's `Completed` signal said; touched only on the thread that runs the prompt's
/// main context (the one calling ``SecretServiceClient/runPrompt(_:call:startedAt:)``).
private final class PromptOutcome {
    var completed = false
    var dismissed = false
    /// The prompt's result, owned here until ``SecretServiceClient/runPrompt(_:call:startedAt:)`` hands it on.
    var result: OpaquePointer?

    deinit { result.map { g_variant_unref($0) } }
}
