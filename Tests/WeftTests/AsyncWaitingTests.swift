import Foundation
import Testing
import Weft

/// Async resolves that wait, or that come late: a cancelled waiter stops waiting at once, and a resolver a
/// factory kept resolves on its own after the factory returned.
@Suite struct AsyncWaitingTests {
    final class Pool: Sendable {}
    final class Report: Sendable {
        let pool: Pool
        init(pool: Pool) { self.pool = pool }
    }

    /// A one-shot signal tasks can await without blocking a thread.
    final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var open = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = lock.withLock {
                    if !open { waiting.append(continuation) }
                    return open
                }
                if ready { continuation.resume() }
            }
        }

        func openGate() {
            let toResume = lock.withLock {
                open = true
                defer { waiting = [] }
                return waiting
            }
            for continuation in toResume { continuation.resume() }
        }

        var isOpen: Bool { lock.withLock { open } }
    }

    @Test(hangLimit)
    func cancelledTaskWaitingForAnotherTasksBuildReturnsAtOnce() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let builds = Counter()
        container.register(Pool.self) { (_: AsyncResolver) async in
            builds.increment()
            entered.openGate()
            await release.wait()
            return Pool()
        }
        .inObjectScope(.container)

        let builder = Task { try await container.async.require(Pool.self) }
        await entered.wait()
        let waiter = Task { try await container.async.require(Pool.self) }
        try await Task.sleep(nanoseconds: 50_000_000)
        waiter.cancel()

        // The waiter returns while the build is still held open.
        let outcome: Result<Pool, any Error> = await waiter.result
        #expect(!release.isOpen)
        #expect(throws: CancellationError.self) { try outcome.get() }

        release.openGate()
        let pool = try await builder.value
        #expect(try await container.async.require(Pool.self) === pool)
        #expect(builds.value == 1)
    }

    @Test func resolverKeptByAFactoryResolvesAfterTheFactoryReturned() async throws {
        let container = Container()
        let kept = Collected<AsyncResolver>()
        // The kept resolver keeps the container whose factory keeps it: the test breaks that cycle when it ends.
        defer { kept.removeAll() }
        container.register(Pool.self) { (_: AsyncResolver) async in Pool() }.inObjectScope(.container)
        container.register(Report.self) { (r: AsyncResolver) async throws in
            kept.append(r)
            return Report(pool: try await r.require(Pool.self))
        }

        let first = try await container.async.require(Report.self)
        let resolver = try #require(kept.values.first)
        // The factory's own registration is no longer being made: no cycle.
        let second = try await resolver.require(Report.self)
        #expect(second !== first)
        #expect(second.pool === first.pool)
        #expect(await resolver.resolve(Report.self) != nil)
    }

    @Test func resolverKeptByAFactoryKeepsItsContainerWhenNothingElseDoes() async throws {
        let kept = Collected<AsyncResolver>()
        // The kept resolver keeps the container whose factory keeps it: the test breaks that cycle when it ends.
        defer { kept.removeAll() }
        weak var weakContainer: Container?
        do {
            let container = Container()
            weakContainer = container
            container.register(Pool.self) { (_: AsyncResolver) async in Pool() }
            container.register(Report.self) { (r: AsyncResolver) async throws in
                kept.append(r)
                return Report(pool: try await r.require(Pool.self))
            }
            _ = try await container.async.require(Report.self)
        }

        // Nothing but the kept resolver refers to the container now: it still resolves through it.
        #expect(weakContainer != nil)
        let resolver = try #require(kept.values.first)
        let report = try await resolver.require(Report.self)
        #expect(try await resolver.require(Pool.self) !== report.pool)
    }
}
