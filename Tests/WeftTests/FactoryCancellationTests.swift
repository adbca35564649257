import Dispatch
import Foundation
import Testing
import Weft

/// A synchronous factory that honours its task's cancellation (it throws `CancellationError`) fails its own
/// resolve only: a failed build is not remembered, and threads that were waiting for it build the service
/// themselves. (Async waiters and cancelled async builds are covered by AsyncWaitingTests.)
@Suite struct FactoryCancellationTests {
    final class Engine: Sendable {}

    /// Lets the test hold the first build of `Engine` inside its factory until the test says go on.
    final class Gate: @unchecked Sendable {
        let proceed = DispatchSemaphore(value: 0)
        let calls = Counter()

        /// Waits, without blocking a thread of the task pool, until the first build is inside the factory.
        func entered() async throws -> Bool {
            try await eventually { self.calls.value >= 1 }
        }
    }

    /// A `.container` Engine whose factory, on its first call only, waits at `gate` and then honours
    /// cancellation; later calls make an Engine at once.
    private func container(gate: Gate, scope: ObjectScope = .container) -> Container {
        let container = Container()
        container.register(Engine.self) { _ in
            if gate.calls.increment() == 1 {
                _ = gate.proceed.wait(timeout: .now() + 10)
                try Task.checkCancellation()
            }
            return Engine()
        }
        .inObjectScope(scope)
        return container
    }

    /// Runs a synchronous `require` of Engine in a task of its own, which the test can cancel. The task runs on
    /// a thread of its own: its factory blocks, and a blocked thread of the shared task pool could starve the
    /// test that is to release it.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    private func requireInATask(_ container: Container) -> Task<Engine, any Error> {
        let executor = DedicatedThreadExecutor()
        return Task.detached(executorPreference: executor) {
            defer { executor.stop() }
            return try container.require(Engine.self)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func aFactoryCancelledWithItsTaskFailsThatResolveWithTheCancellationAsTheCause() async throws {
        let gate = Gate()
        let container = container(gate: gate)
        let task = requireInATask(container)
        #expect(try await gate.entered())

        task.cancel()
        gate.proceed.signal()
        let error = try await #require(throws: ResolutionError.self) { try await task.result.get() }

        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError is CancellationError)
        #expect(error.description == "[Weft.factoryFailed] The factory of Engine threw: CancellationError()")
    }

    @Test(.timeLimit(.minutes(1)))
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func aCancelledBuildIsNotRememberedAndTheNextResolveBuildsTheSingleton() async throws {
        let gate = Gate()
        let container = container(gate: gate)
        let task = requireInATask(container)
        #expect(try await gate.entered())
        task.cancel()
        gate.proceed.signal()
        _ = await task.result

        let engine = try container.require(Engine.self)

        #expect(gate.calls.value == 2)
        #expect(
            try container.require(Engine.self) === engine, "the singleton made after the cancelled build was not kept")
    }

    @Test(.timeLimit(.minutes(1)))
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func threadsWaitingForACancelledBuildBuildTheSingletonOnceAndShareIt() async throws {
        let gate = Gate()
        let container = container(gate: gate)
        let task = requireInATask(container)
        #expect(try await gate.entered())

        // Four threads ask while the first build is held: they wait for it.
        let engines = Collected<ObjectIdentifier>()
        let failures = Collected<String>()
        let waiters = (0..<4).map { _ in
            runOnThread {
                do { engines.append(ObjectIdentifier(try container.require(Engine.self))) } catch {
                    failures.append("\(error)")
                }
            }
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(engines.values.isEmpty && failures.values.isEmpty, "a thread did not wait for the build in progress")
        task.cancel()
        gate.proceed.signal()

        let finished = try await eventually { engines.values.count + failures.values.count == 4 }
        #expect(finished, "a waiting thread hung after the build was cancelled")
        _ = waiters
        #expect(await task.result.isFailure)
        #expect(failures.values == [])
        #expect(engines.values.count == 4)
        #expect(Set(engines.values).count == 1, "the waiting threads got different singletons")
        #expect(gate.calls.value == 2, "the waiting threads did not build the singleton exactly once")
        #expect(try ObjectIdentifier(container.require(Engine.self)) == engines.values.first)
    }

    @Test(.timeLimit(.minutes(1)), arguments: [ObjectScope.graph, .transient, .weak])
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func aCancelledBuildOfAnUnsharedOrWeakServiceLeavesNothingBehind(scope: ObjectScope) async throws {
        let gate = Gate()
        let container = container(gate: gate, scope: scope)
        let task = requireInATask(container)
        #expect(try await gate.entered())
        task.cancel()
        gate.proceed.signal()

        #expect(await task.result.isFailure)
        let engine = try container.require(Engine.self)
        #expect(gate.calls.value == 2)
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
