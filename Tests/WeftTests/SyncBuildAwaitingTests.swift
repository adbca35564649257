import Foundation
import Testing
import Weft

/// Tasks that ask for a shared instance another thread is building with a synchronous factory suspend until
/// it is built: they never block a thread of the cooperative pool, which has only as many threads as cores.
@Suite struct SyncBuildAwaitingTests {
    final class Clock: Sendable {}

    /// Registers a `.container` `Clock` whose synchronous factory blocks until `release` is signalled (or
    /// `seconds` pass), and starts building it on a thread of its own; returns once the factory is running.
    private func clockBeingBuilt(
        release: DispatchSemaphore,
        seconds: Double,
        releasedByTimeout: Counter,
        builds: Counter
    ) -> (Container, RunningThread) {
        let container = Container()
        let started = DispatchSemaphore(value: 0)
        container.register(Clock.self) { _ in
            builds.increment()
            started.signal()
            if release.wait(timeout: .now() + seconds) == .timedOut { releasedByTimeout.increment() }
            return Clock()
        }
        .inObjectScope(.container)
        let builder = runOnThread { _ = container.resolve(Clock.self) }
        started.wait()
        return (container, builder)
    }

    @Test(timeLimit(minutes: 2))
    func tasksWaitingForAnotherThreadsSynchronousBuildLeaveThePoolFree() async throws {
        let release = DispatchSemaphore(value: 0)
        let (releasedByTimeout, builds) = (Counter(), Counter())
        let (container, builder) = clockBeingBuilt(
            release: release, seconds: 90, releasedByTimeout: releasedByTimeout, builds: builds)

        let waiters = (0..<100).map { _ in
            Task.detached { ObjectIdentifier(try await container.async.require(Clock.self)) }
        }
        // Give the waiters time to reach the build, then check that the pool still runs other work: with
        // blocked threads neither the sleep nor the task would end before the factory's own timeout. (Other
        // tests may hold the pool's threads for a while, under the sanitizers for long: the timeout is long.)
        try await Task.sleep(nanoseconds: 200_000_000)
        let other = await Task.detached { 42 }.value
        #expect(other == 42)
        release.signal()

        var instances = Set<ObjectIdentifier>()
        for waiter in waiters { instances.insert(try await waiter.value) }
        #expect(builder.wait(seconds: 10))
        #expect(releasedByTimeout.value == 0, "the pool was blocked until the factory gave up waiting")
        #expect(builds.value == 1)
        #expect(instances.count == 1)
        #expect(instances.first == container.resolve(Clock.self).map(ObjectIdentifier.init))
    }

    @Test(timeLimit(minutes: 2))
    func cancelledTaskWaitingForAnotherThreadsBuildStopsWaiting() async throws {
        let release = DispatchSemaphore(value: 0)
        let (releasedByTimeout, builds) = (Counter(), Counter())
        let (container, builder) = clockBeingBuilt(
            release: release, seconds: 90, releasedByTimeout: releasedByTimeout, builds: builds)

        let waiter = Task.detached { try await container.async.require(Clock.self) }
        try await Task.sleep(nanoseconds: 100_000_000)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        release.signal()
        #expect(builder.wait(seconds: 10))
        #expect(builds.value == 1)
    }
}
