import Dispatch
import Foundation
import Testing
import Weft

/// A thread-safe counter for counting factory calls from any thread.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    @discardableResult
    func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }

    @discardableResult
    func decrement() -> Int {
        lock.withLock {
            count -= 1
            return count
        }
    }
}

/// A thread-safe list of values collected from several threads.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Value] = []

    var values: [Value] { lock.withLock { items } }

    func append(_ value: Value) { lock.withLock { items.append(value) } }

    /// Forgets every value (a test breaks a reference cycle through its values this way).
    func removeAll() { lock.withLock { items.removeAll() } }
}

/// A body running on its own thread, which can be waited for with a timeout.
struct RunningThread: Sendable {
    private let done: DispatchSemaphore

    fileprivate init(done: DispatchSemaphore) { self.done = done }

    /// Waits up to `seconds`; returns whether the body finished. A finished thread stays finished.
    func wait(seconds: Double) -> Bool {
        guard done.wait(timeout: .now() + seconds) == .success else { return false }
        done.signal()
        return true
    }

    /// ``wait(seconds:)`` for an async test: the waiting blocks a Dispatch thread, not one of the concurrency
    /// runtime's few cooperative threads, which every other async test of the run needs meanwhile.
    func finished(within seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: wait(seconds: seconds)) }
        }
    }
}

/// Runs `body` on a new thread with a large stack (deep graphs recurse once per level).
@discardableResult
func runOnThread(stackSize: Int = 16 << 20, _ body: @escaping @Sendable () -> Void) -> RunningThread {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    return RunningThread(done: done)
}

/// Lets `count` threads start together: each one that arrives waits (up to `seconds`) for the others.
final class StartBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private var arrived = 0

    init(count: Int) { self.count = count }

    /// Waits until all `count` threads have arrived, or `seconds` have passed; returns whether all arrived.
    @discardableResult
    func arriveAndWait(seconds: Double = 10) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived == count { condition.broadcast() }
        let deadline = Date().addingTimeInterval(seconds)
        while arrived < count {
            if !condition.wait(until: deadline) { return arrived >= count }
        }
        return true
    }
}

/// Runs `body(index)` on `count` new threads (`Thread`s, one per index, not a pool) that start together
/// at a barrier, and waits for all of them. Records an issue and returns false when they have not all finished
/// within `seconds`, so a deadlock fails the test instead of hanging it.
@discardableResult
func runOnThreads(
    _ count: Int,
    seconds: Double = 60,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Int) -> Void
) -> Bool {
    let barrier = StartBarrier(count: count)
    let threads = (0..<count).map { index in
        runOnThread(stackSize: 4 << 20) {
            barrier.arriveAndWait()
            body(index)
        }
    }
    let deadline = Date().addingTimeInterval(seconds)
    let finished = threads.allSatisfy { $0.wait(seconds: max(0, deadline.timeIntervalSinceNow)) }
    if !finished {
        Issue.record("\(count) threads did not all finish within \(seconds) seconds", sourceLocation: sourceLocation)
    }
    return finished
}

/// Whether the tests run under a sanitizer (`.ci/run` sets `WEFT_TESTS_UNDER_SANITIZER`), where the heaviest
/// loops run fewer rounds: the instrumentation makes every step many times slower.
let underSanitizer = ProcessInfo.processInfo.environment["WEFT_TESTS_UNDER_SANITIZER"] != nil

/// `rounds`, or a tenth of it (at least one) under a sanitizer.
func lighterUnderSanitizer(_ rounds: Int) -> Int { underSanitizer ? max(1, rounds / 10) : rounds }

/// Serializes the tests (of any suite) that replace the global `Container.loggingFunction`.
private let loggingFunctionLock = NSLock()

/// Runs `body` with `function` as the logging function, then puts the previous one back. Holds a lock so
/// that tests of different suites never replace the function at the same time.
func withLoggingFunction(_ function: (@Sendable (String) -> Void)?, _ body: () throws -> Void) rethrows {
    loggingFunctionLock.lock()
    defer { loggingFunctionLock.unlock() }
    let saved = Container.loggingFunction
    defer { Container.loggingFunction = saved }
    Container.loggingFunction = function
    try body()
}

/// Runs `body` with a log handler that collects the records whose message contains `marker` and hands every
/// record on to the handler it replaces, which it puts back afterwards. Handing on keeps the tests of other
/// suites, which collect through ``withLoggingFunction(_:_:)`` at the same time, working; the tests that use
/// this one must not run in parallel with each other (a serialized suite).
func recordsLogged(containing marker: String, while body: () async throws -> Void) async rethrows -> [LogRecord] {
    let records = Collected<LogRecord>()
    let previous = Container.logHandler
    Container.logHandler = { record in
        if record.message.contains(marker) { records.append(record) }
        previous?(record)
    }
    defer { Container.logHandler = previous }
    try await body()
    return records.values
}

/// Runs `body` with a logging function that collects the messages containing `marker`. Other suites resolve
/// in parallel, so only messages naming the caller's own types count.
func messagesLogged(containing marker: String, while body: () throws -> Void) rethrows -> [String] {
    let messages = Collected<String>()
    try withLoggingFunction({ message in if message.contains(marker) { messages.append(message) } }, body)
    return messages.values
}

/// An error that test factories and callbacks throw.
enum CoreTestError: Error, Equatable {
    case factoryBroke
    case callbackBroke
    case other(String)
}

/// An executor that runs its jobs one at a time on a thread of its own, so that a test can tell whether code runs
/// on an actor that uses it (``isCurrent``). The thread lives as long as the test process. `ExecutorJob` needs the
/// Swift 5.9 runtime.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var threadID: pthread_t?

    init() {
        let started = DispatchSemaphore(value: 0)
        _ = runOnThread { [self] in
            condition.withLock { threadID = pthread_self() }
            started.signal()
            while true {
                let job = condition.withLock {
                    while jobs.isEmpty { condition.wait() }
                    return jobs.removeFirst()
                }
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
        started.wait()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.withLock {
            jobs.append(unowned)
            condition.signal()
        }
    }

    /// Whether the calling code runs on this executor's thread.
    var isCurrent: Bool {
        condition.withLock { threadID.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }
}

extension Container {
    /// `end(timeout:)` with a bound far above the default, for tests of what teardown does rather than of how
    /// long it may take. Under a sanitizer the whole suite queues on the concurrency runtime's few threads, and
    /// the task an async teardown runs in can wait there behind other tests' jobs for longer than the default
    /// 30 seconds; the bound stays finite, so a teardown that never ends still fails its test.
    func endPatiently() async throws {
        try await end(timeout: 600)
    }
}
