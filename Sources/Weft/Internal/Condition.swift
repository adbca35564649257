import WeftAtomics

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutex with a condition variable, for threads that wait until another thread finishes building
/// a shared instance, and the tasks that wait for the same without blocking their thread: each broadcast
/// wakes both.
///
/// It counts its waiters, so that finishing a build nobody waits for costs no mutex: a waiter counts itself
/// before it reads what it waits for, and one who finished clears what it built before it reads the count.
/// Either it sees the waiter and broadcasts (the waiter holds the mutex from its check until it waits), or the
/// waiter sees the build finished and does not wait.
final class Condition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// The threads in ``withWaitingLock(_:)`` and the tasks in ``suspend(while:)``; atomic, at a fixed address.
    private let waiting: UnsafeMutablePointer<Int64>
    /// Suspended tasks, by the number each was given; guarded by `mutex`.
    @exclusivity(unchecked) private var suspended: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    @exclusivity(unchecked) private var nextID: UInt64 = 0

    init() {
        (mutex, condition) = WaitPrimitives.make()
        waiting = .allocate(capacity: 1)
        waiting.initialize(to: 0)
    }

    deinit {
        WaitPrimitives.destroy(mutex, condition)
        waiting.deallocate()
    }

    /// How many threads and tasks wait now.
    var waiters: Int { Int(weft_waiters_load(waiting)) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// ``withLock(_:)`` for a thread that may ``wait()`` in `body`: counted as a waiter from before `body` reads
    /// what it waits for until `body` returns, so that ``broadcast()`` wakes it.
    func withWaitingLock<T>(_ body: () throws -> T) rethrows -> T {
        weft_waiters_add(waiting, 1)
        defer { weft_waiters_add(waiting, -1) }
        return try withLock(body)
    }

    /// Waits for ``broadcast()``; call only while holding the lock (inside ``withLock(_:)``).
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes every waiting thread; call only while holding the lock. Suspended tasks wake at the next
    /// ``broadcast()``.
    func broadcastLocked() {
        pthread_cond_broadcast(condition)
    }

    /// Wakes every waiting thread and every suspended task; does nothing when none waits. Call after making the
    /// change they wait for.
    func broadcast() {
        guard weft_waiters_load(waiting) > 0 else { return }
        wakeAll()
    }

    /// ``broadcast()`` once someone waits. In a call of its own: inline, the metadata of the list of suspended
    /// tasks would be looked up on every broadcast, also when nobody waits.
    @inline(never)
    private func wakeAll() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        let woken = suspended.isEmpty ? [] : suspended
        suspended.removeAll()
        pthread_mutex_unlock(mutex)
        for task in woken { task.continuation.resume(returning: true) }
    }

    /// Suspends the calling task until the next ``broadcast()``, unless `stillWaiting`, asked under the lock,
    /// is false. Returns false when the task was cancelled before a broadcast woke it.
    func suspend(while stillWaiting: () -> Bool) async -> Bool {
        let id = withLock {
            nextID += 1
            return nextID
        }
        // Counted from before `stillWaiting` reads what the task waits for until the task is resumed.
        weft_waiters_add(waiting, 1)
        defer { weft_waiters_add(waiting, -1) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = withLock {
                    guard stillWaiting() else { return true }
                    guard !Task.isCancelled else { return false }
                    suspended.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let cancelled = withLock {
                suspended.firstIndex { $0.id == id }.map { suspended.remove(at: $0).continuation }
            }
            cancelled?.resume(returning: false)
        }
    }
}
