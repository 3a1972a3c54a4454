import CSecret
import FoundationEssentials
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension CollectionWatcher {
    /// One item signal of the followed collection, queued: an item written (`ItemCreated`,
    /// `ItemChanged`) or deleted (`ItemDeleted`).
    struct ItemSignal {
        let path: String
        var stored: Bool
        /// Until when an `ItemChanged` waits for the `ItemCreated` it may announce (`nil`: handle it now).
        var heldUntil: ContinuousClock.Instant?
        /// When the first of the signals this entry stands for arrived: no hold lasts past ``longestHold`` after it.
        let since: ContinuousClock.Instant

        /// This entry, told of another signal of its item: `stored` is what the item is now, and an `ItemCreated`
        /// or `ItemDeleted` among them ends the hold; otherwise the hold ends with the last, at most ``longestHold``
        /// after the first.
        func merged(stored: Bool, heldUntil: ContinuousClock.Instant?) -> ItemSignal {
            var merged = self
            merged.stored = stored
            if let held = self.heldUntil, let heldUntil, stored {
                merged.heldUntil = min(max(held, heldUntil), since + CollectionWatcher.longestHold)
            } else {
                merged.heldUntil = nil
            }
            return merged
        }
    }

    /// How long an `ItemChanged` waits for an `ItemCreated` of the same item before it is handled
    /// on its own. KWallet sends its signals of one write within a millisecond.
    static let itemChangedHold = Duration.milliseconds(100)

    /// The longest an item written again and again is held: it is read and reported at least this often.
    static let longestHold = Duration.seconds(1)

    /// Queues an item signal of the collection, so that each write is reported once on every
    /// provider. gnome-keyring announces a new or replaced item with one `ItemCreated`; KWallet
    /// with one or two `ItemChanged` and then `ItemCreated` (and `ItemChanged` alone for a new
    /// secret); KeePassXC 2.7 with `ItemCreated` and a dozen `ItemChanged`, each three times, the
    /// last of them after its answer to `CreateItem`, and after a deletion `ItemChanged` for the
    /// path `/`. So consecutive signals of one item are one write (the item is read when the first
    /// of them is handled, after all of them), and an `ItemChanged` (on KeePassXC any write
    /// signal) is held until ``itemChangedHold`` has passed with no other signal of the item. (KWallet and KeePassXC also send every signal once per path the collection is
    /// exported at, such as `/org/freedesktop/secrets/aliases/default`: only the resolved path is
    /// followed.)
    ///
    /// The queue holds one entry per item: a signal of an item already queued moves its entry to the end (it is read
    /// after every signal that came before), so however fast a provider announces, the queue is never longer than the
    /// number of items that changed since it was last handled.
    func itemSignal(_ member: String, collection: String, item path: String) {
        preconditionOwnsContext()
        logger.trace("Item signal", metadata: ["signal": "\(member)", "item": "\(path)"])
        guard let collectionPath, collection == collectionPath, path.hasPrefix(collectionPath + "/") else { return }
        let stored: Bool
        let heldUntil: ContinuousClock.Instant?
        switch member {
        case "ItemCreated": (stored, heldUntil) = (true, followsKeePassXC ? .now + Self.itemChangedHold : nil)
        case "ItemChanged": (stored, heldUntil) = (true, .now + Self.itemChangedHold)
        case "ItemDeleted": (stored, heldUntil) = (false, nil)
        default: return
        }
        if pendingPaths.contains(path), let index = pending.lastIndex(where: { $0.path == path }) {
            let merged = pending[index].merged(stored: stored, heldUntil: heldUntil)
            if index == pending.count - 1 {
                pending[index] = merged
            } else {
                pending.remove(at: index)
                pending.append(merged)
            }
        } else {
            pending.append(ItemSignal(path: path, stored: stored, heldUntil: heldUntil, since: .now))
            pendingPaths.insert(path)
        }
        schedulePending(after: nil)
    }

    /// Handles the queued signals from a source of the watcher's main context: once the signals
    /// that have already arrived are all queued (an idle source, below the priority GDBus
    /// dispatches signals at), or `after` a hold.
    private func schedulePending(after delay: Duration?) {
        preconditionOwnsContext()
        if (delay == nil ? pendingSources.idle : pendingSources.timer) != 0 { return }
        let source: UnsafeMutablePointer<GSource>
        if let delay {
            source = g_timeout_source_new(delay.timerMilliseconds)!
        } else {
            source = g_idle_source_new()!
            g_source_set_priority(source, G_PRIORITY_DEFAULT_IDLE)
        }
        defer { g_source_unref(source) }
        let callback: GSourceFunc = delay == nil
            ? { Unmanaged<CollectionWatcher>.fromOpaque($0!).takeUnretainedValue().handlePending(timer: false); return 0 }
            : { Unmanaged<CollectionWatcher>.fromOpaque($0!).takeUnretainedValue().handlePending(timer: true); return 0 }
        g_source_set_callback(
            source, callback, Unmanaged.passRetained(self).toOpaque(), { Unmanaged<CollectionWatcher>.fromOpaque($0!).release() })
        let id = g_source_attach(source, context)
        if delay == nil { pendingSources.idle = id } else { pendingSources.timer = id }
    }

    /// Detaches the sources that would handle the queue (each releases the watcher it holds).
    func cancelPending() {
        preconditionOwnsContext()
        for id in [pendingSources.idle, pendingSources.timer] where id != 0 {
            if let source = g_main_context_find_source_by_id(context, id) { g_source_destroy(source) }
        }
        pendingSources = (0, 0)
        pending = []
        pendingPaths = []
    }

    /// Handles the first queued signal unless it is still held, then lets the signals that came
    /// meanwhile join the queue before the next (an idle source, below the priority GDBus
    /// dispatches signals at): each read of an item can take long on a busy provider, and the
    /// signals that arrive during it then fold into the entries already queued, instead of waiting
    /// as messages of their own. Removals are not believed from a locked collection, nor from a
    /// provider that cannot say whether it is locked (KeePassXC announces every item deleted as it
    /// quits, and its collection object is gone by then): the items are listed again instead, which
    /// reports what really went.
    private func handlePending(timer: Bool) {
        preconditionOwnsContext()
        if timer { pendingSources.timer = 0 } else { pendingSources.idle = 0 }
        guard let signal = pending.first else { return }
        if let heldUntil = signal.heldUntil, heldUntil > .now {
            schedulePending(after: heldUntil - .now)
            return
        }
        pending.removeFirst()
        pendingPaths.remove(signal.path)
        if signal.stored {
            itemStored(at: signal.path)
        } else if removalsBelievedNow() {
            forget(signal.path)
        }
        if pending.isEmpty {
            removalsBelieved = nil
        } else {
            schedulePending(after: nil)
        }
    }

    /// ``removalsAreBelieved()``, asked again once the queue was empty, the collection said it changed, or
    /// ``longestHold`` passed: a provider that announces every item deleted (KeePassXC locking or quitting) is asked
    /// once for all of them, not once for each.
    private func removalsBelievedNow() -> Bool {
        preconditionOwnsContext()
        if let (believed, until) = removalsBelieved, until > .now { return believed }
        let believed = removalsAreBelieved()
        removalsBelieved = (believed, .now + Self.longestHold)
        return believed
    }

    /// Whether the removals announced now are believed: the collection is unlocked. Asked of the
    /// provider, not taken from the last CollectionChanged (gnome-keyring announces an
    /// unlock with ItemChanged for every item only). When the provider cannot tell, the items are
    /// listed again instead.
    func removalsAreBelieved() -> Bool {
        preconditionOwnsContext()
        guard let locked = isCollectionLocked() else {
            listAgain()
            return false
        }
        collectionLocked = locked
        return !locked
    }
}
