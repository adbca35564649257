#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one clock of every teardown's time-out in the process: a thread of its own, started at the first
/// time-out, that sleeps until the earliest deadline and ends the races whose deadline has passed.
///
/// A sleeping task per teardown would cost every `end()` a task and a timer of the executor's; here a time-out
/// costs an insertion into a heap and a removal, under one mutex, and wakes the thread only when it is earlier
/// than the deadline the thread sleeps until (with one time-out for every teardown, a new deadline is the
/// latest, so it never does). No user code runs on this thread: it only resumes the waiting tasks.
final class TeardownClock: @unchecked Sendable {
    /// The process's clock.
    static let shared = TeardownClock()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// The scheduled races; guarded by `mutex`.
    @exclusivity(unchecked) private var heap = DeadlineHeap()
    /// Whether the thread runs; guarded by `mutex`.
    @exclusivity(unchecked) private var started = false
    /// The deadline the thread waits for while it waits (`UInt64.max`: none), `nil` while it is awake and will
    /// look at the heap before it waits again. Guarded by `mutex`.
    @exclusivity(unchecked) private var sleepingUntil: UInt64?

    /// Whether the clock may start its thread; false only in tests of what happens when the system refuses it.
    private let mayStartThread: Bool

    init(mayStartThread: Bool = true) {
        self.mayStartThread = mayStartThread
        // Deadlines are on the monotonic clock, which the wall clock's changes do not move.
        (mutex, condition) = WaitPrimitives.make(monotonic: true)
    }

    /// Runs only for a clock whose thread never started: a running thread keeps its clock.
    deinit {
        WaitPrimitives.destroy(mutex, condition)
    }

    /// Nanoseconds on the monotonic clock.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// The deadline `seconds` from now; nil when the bound is too far to ever be reached.
    static func deadline(after seconds: Double) -> UInt64? {
        guard seconds < 1e9 else { return nil }
        return now() + UInt64(max(0, seconds) * 1e9)
    }

    /// Ends `race` as timed out at `deadline`, unless it is cancelled first. Called by the race, under its lock.
    func schedule(_ race: TeardownRace, at deadline: UInt64) {
        pthread_mutex_lock(mutex)
        race.deadline = deadline
        heap.insert(race)
        if !started { started = startThread() }
        let running = started
        if running, let sleepingUntil, deadline < sleepingUntil {
            pthread_cond_signal(condition)
        }
        pthread_mutex_unlock(mutex)
        if !running { timeOutWithoutThread(race, at: deadline) }
    }

    /// Ends `race` at `deadline` from a task that sleeps until then: the bound still holds when the system would
    /// not start the clock's thread (the next time-out tries again).
    private func timeOutWithoutThread(_ race: TeardownRace, at deadline: UInt64) {
        Task { [self] in
            let now = Self.now()
            if deadline > now { try? await Task.sleep(nanoseconds: deadline - now) }
            cancel(race)
            race.finish(.timedOut)
        }
    }

    /// Forgets `race`, which ended before its deadline.
    func cancel(_ race: TeardownRace) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        heap.remove(race)
    }

    /// The scheduled races; for tests.
    var scheduledCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return heap.count
    }

    /// Starts the clock's thread; false when the system would not.
    private func startThread() -> Bool {
        guard mayStartThread else { return false }
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        // The clock is kept by its thread, which never ends.
        let context = Unmanaged.passRetained(self).toOpaque()
        #if canImport(Darwin)
            let created = pthread_create(
                &thread, nil,
                { context in
                    Unmanaged<TeardownClock>.fromOpaque(context).takeUnretainedValue().run()
                    return nil
                }, context)
        #else
            let created = pthread_create(
                &thread, nil,
                { context in
                    Unmanaged<TeardownClock>.fromOpaque(context!).takeUnretainedValue().run()
                    return nil
                }, context)
        #endif
        guard created == 0 else {
            Unmanaged<TeardownClock>.fromOpaque(context).release()
            return false
        }
        #if canImport(Darwin)
            pthread_detach(thread!)
        #else
            pthread_detach(thread)
        #endif
        return true
    }

    /// The thread: ends the races past their deadline (outside the mutex: resuming a task is the race's
    /// business), then waits for the earliest deadline left, or for a first one.
    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            let now = Self.now()
            let expired = heap.removeExpired(at: now)
            if !expired.isEmpty {
                pthread_mutex_unlock(mutex)
                for race in expired { race.finish(.timedOut) }
                pthread_mutex_lock(mutex)
                continue
            }
            let deadline = heap.earliest ?? .max
            sleepingUntil = deadline
            if deadline == .max {
                pthread_cond_wait(condition, mutex)
            } else {
                wait(until: deadline, now: now)
            }
            sleepingUntil = nil
        }
    }

    private func wait(until deadline: UInt64, now: UInt64) {
        #if canImport(Darwin)
            let interval = deadline - now
            var relative = timespec(tv_sec: Int(interval / 1_000_000_000), tv_nsec: Int(interval % 1_000_000_000))
            pthread_cond_timedwait_relative_np(condition, mutex, &relative)
        #else
            var absolute = timespec(
                tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            pthread_cond_timedwait(condition, mutex, &absolute)
        #endif
    }
}

/// Races by deadline, earliest first: a binary min-heap in which each race knows its place, so that one that
/// ends before its deadline leaves in logarithmic time. Not synchronized: the ``TeardownClock`` guards it.
struct DeadlineHeap {
    private var races: [TeardownRace] = []

    /// How many races it holds.
    var count: Int { races.count }

    /// The earliest deadline, if any.
    var earliest: UInt64? { races.first?.deadline }

    /// Adds `race`, at its ``TeardownRace/deadline``.
    mutating func insert(_ race: TeardownRace) {
        race.heapIndex = races.count
        races.append(race)
        siftUp(races.count - 1)
    }

    /// Takes `race` out, if it is in.
    mutating func remove(_ race: TeardownRace) {
        guard let index = race.heapIndex else { return }
        remove(at: index)
    }

    /// Takes out the races whose deadline is `now` or earlier, earliest first.
    mutating func removeExpired(at now: UInt64) -> [TeardownRace] {
        var expired: [TeardownRace] = []
        while let first = races.first, first.deadline <= now {
            expired.append(first)
            remove(at: 0)
        }
        return expired
    }

    private mutating func remove(at index: Int) {
        let last = races.count - 1
        races[index].heapIndex = nil
        if index != last {
            races.swapAt(index, last)
            races[index].heapIndex = index
        }
        races.removeLast()
        guard index < races.count else { return }
        siftDown(index)
        siftUp(index)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard races[child].deadline < races[parent].deadline else { return }
            swap(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var smallest = parent
            let left = 2 * parent + 1
            if left < races.count, races[left].deadline < races[smallest].deadline { smallest = left }
            if left + 1 < races.count, races[left + 1].deadline < races[smallest].deadline { smallest = left + 1 }
            guard smallest != parent else { return }
            swap(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swap(_ first: Int, _ second: Int) {
        races.swapAt(first, second)
        races[first].heapIndex = first
        races[second].heapIndex = second
    }
}
