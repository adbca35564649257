import Dispatch
import Foundation
import Testing
import Weft

/// A synchronous factory that honours its task's cancellation (it throws `CancellationError`) fails its own
/// resolve only: a failed build is not remembered, and threads that were waiting for it build the service
/// themselves. (Async waiters and cancelled async builds are covered by AsyncWaitingTests.)
@Suite struct FactoryCancellationTests {
    final class Engine: Sendable {}

    /// The first build of `Engine`: it waits for `waiters` threads to be waiting for it, then its task is
    /// cancelled and the factory honours that. Later builds make an Engine at once.
    final class FirstBuild: @unchecked Sendable {
        let calls = Counter()
        let waiting = Counter()
        let waiters: Int
        /// How many waiters had already got an Engine when the first build gave up.
        let finishedBeforeTheCancellation = Collected<Int>()
        let engines = Collected<ObjectIdentifier>()

        init(waiters: Int = 0) { self.waiters = waiters }

        func run() throws {
            guard calls.increment() == 1 else { return }
            let deadline = Date().addingTimeInterval(10)
            while waiting.value < waiters, Date() < deadline { usleep(1_000) }
            // Long enough for the last waiter to go from counting itself to waiting for this build.
            if waiters > 0 { usleep(100_000) }
            finishedBeforeTheCancellation.append(engines.values.count)
            // The cancellation arrives while the factory runs, as when the task's owner cancels it.
            withUnsafeCurrentTask { $0?.cancel() }
            try Task.checkCancellation()
        }
    }

    /// An `Engine` in `scope` whose factory runs `build` first.
    private func container(_ build: FirstBuild, scope: ObjectScope = .container) -> Container {
        let container = Container()
        container.register(Engine.self) { _ in
            try build.run()
            return Engine()
        }
        .inObjectScope(scope)
        return container
    }

    /// Runs a synchronous `require` of Engine in a task of its own. The task runs on a thread of its own: its
    /// factory may wait for other threads, and a blocked thread of the shared task pool could starve other tests.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    private func requireInATask(_ container: Container) -> Task<Engine, any Error> {
        let executor = DedicatedThreadExecutor()
        return Task.detached(executorPreference: executor) {
            defer { executor.stop() }
            return try container.require(Engine.self)
        }
    }

    @Test(hangLimit)
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func aFactoryCancelledWithItsTaskFailsThatResolveWithTheCancellationAsTheCause() async throws {
        let container = container(FirstBuild())

        let error = try await #require(throws: ResolutionError.self) {
            try await requireInATask(container).result.get()
        }

        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError is CancellationError)
        #expect(error.description == "[Weft.factoryFailed] The factory of Engine threw: CancellationError()")
    }

    @Test(hangLimit)
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func aCancelledBuildIsNotRememberedAndTheNextResolveBuildsTheSingleton() async throws {
        let build = FirstBuild()
        let container = container(build)
        #expect(await requireInATask(container).result.isFailure)

        let engine = try container.require(Engine.self)

        #expect(build.calls.value == 2)
        #expect(
            try container.require(Engine.self) === engine, "the singleton made after the cancelled build was not kept")
    }

    @Test(hangLimit)
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func threadsWaitingForACancelledBuildBuildTheSingletonOnceAndShareIt() async throws {
        let build = FirstBuild(waiters: 4)
        let container = container(build)
        let task = requireInATask(container)
        try #require(try await eventually { build.calls.value == 1 })

        // Four threads ask while the first build is running: they wait for it.
        let failures = Collected<String>()
        let waiters = (0..<4).map { _ in
            runOnThread {
                build.waiting.increment()
                do { build.engines.append(ObjectIdentifier(try container.require(Engine.self))) } catch {
                    failures.append("\(error)")
                }
            }
        }

        #expect(await task.result.isFailure)
        let finished = try await eventually { build.engines.values.count + failures.values.count == 4 }
        #expect(finished, "a waiting thread hung after the build was cancelled")
        _ = waiters
        #expect(build.finishedBeforeTheCancellation.values == [0], "a thread did not wait for the build in progress")
        #expect(failures.values == [])
        #expect(Set(build.engines.values).count == 1, "the waiting threads got different singletons")
        #expect(build.calls.value == 2, "the waiting threads did not build the singleton exactly once")
        #expect(try ObjectIdentifier(container.require(Engine.self)) == build.engines.values.first)
    }

    @Test(hangLimit, arguments: [ObjectScope.graph, .transient, .weak])
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func aCancelledBuildOfAnUnsharedOrWeakServiceLeavesNothingBehind(scope: ObjectScope) async throws {
        let build = FirstBuild()
        let container = container(build, scope: scope)

        #expect(await requireInATask(container).result.isFailure)
        let engine = try container.require(Engine.self)

        #expect(build.calls.value == 2)
        withExtendedLifetime(engine) {}
    }

    @Test func aCallbackCancelledWithItsTaskFailsAndItsInstanceIsNotKept() async throws {
        let calls = Counter()
        let container = Container()
        container.register(Engine.self) { _ in
            calls.increment()
            return Engine()
        }
        .inObjectScope(.container)
        .initCompleted { _, _ in try Task.checkCancellation() }

        let cancelled = Task.detached {
            withUnsafeCurrentTask { $0?.cancel() }
            return try container.require(Engine.self)
        }
        let error = try await #require(throws: ResolutionError.self) { try await cancelled.result.get() }
        let engine = try container.require(Engine.self)

        #expect(error.reason == .initCompletedFailed)
        #expect(error.underlyingError is CancellationError)
        #expect(calls.value == 2, "the instance whose callback was cancelled was kept")
        #expect(try container.require(Engine.self) === engine)
    }
}

/// Whether `condition` holds within `seconds`, checked every millisecond without blocking a thread.
private func eventually(seconds: Double = 10, _ condition: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    return true
}

/// Runs the jobs of the tasks that prefer it on one thread of its own, until stopped.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        // The thread keeps the executor until it is stopped and has run every job.
        Thread { self.run() }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Lets the thread end once it has run the jobs already enqueued.
    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
