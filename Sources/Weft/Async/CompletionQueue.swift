/// The `initCompleted` callbacks waiting for a factory to return, and whether that factory has returned: a graph's
/// top-level factory (``AsyncGraph/completions``) or a shared instance's (``AsyncBuild/completions``). Guarded by
/// the lock of whoever holds it; the callbacks it hands out are run, or released, after that lock.
///
/// Open, it takes callbacks. The factory's side takes them out once it returned, and closes the queue when it finds
/// it empty: from then on, a task the factory started that outlives it runs its callbacks at once instead
/// (``append(_:)`` refuses them), so none is left behind. A failed build closes it and drops what was queued.
struct CompletionQueue {
    private var queued: [PendingCompletion] = []
    /// Whether the callbacks of instances made from now on run at once rather than wait here.
    private(set) var isClosed = false

    /// Whether no callback waits.
    var isEmpty: Bool { queued.isEmpty }

    /// Queues `completions` unless the queue is closed; returns whether it did (false: run them now).
    @inline(__always)
    mutating func append(_ completions: [PendingCompletion]) -> Bool {
        guard !isClosed else { return false }
        queued += completions
        return true
    }

    /// Takes what waits; when nothing does and `closingWhenEmpty`, closes the queue.
    @inline(__always)
    mutating func take(closingWhenEmpty: Bool) -> [PendingCompletion] {
        guard !queued.isEmpty else {
            if closingWhenEmpty { isClosed = true }
            return []
        }
        var taken: [PendingCompletion] = []
        swap(&taken, &queued)
        return taken
    }

    /// Closes the queue and takes what waits, for the caller to release (or run) after the lock.
    mutating func close() -> [PendingCompletion] {
        isClosed = true
        var taken: [PendingCompletion] = []
        swap(&taken, &queued)
        return taken
    }

    /// Opens the queue again for a graph or build that is reused; what waits stays (nothing, when it was closed
    /// and emptied).
    @inline(__always)
    mutating func reopen() {
        isClosed = false
    }

    /// Releases what waits, keeping the storage, for a graph that becomes a spare: a reused graph then allocates no
    /// queue again.
    mutating func empty() {
        // An empty list is left alone: emptying it still goes through the array's replacement of a range.
        if !queued.isEmpty { queued.removeAll(keepingCapacity: true) }
    }
}
