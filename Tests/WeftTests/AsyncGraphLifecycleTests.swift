import Foundation
import Testing

@testable import Weft

#if !canImport(Darwin)
    import Synchronization
#endif

/// How an async graph ends: what it kept is released after the engine's lock, and a graph nothing refers to once
/// it has ended is taken again by its thread's next top-level async resolve, as a new graph; one that something
/// still refers to is never taken again.
@Suite struct AsyncGraphLifecycleTests {
    /// A graph-scoped instance whose deinit checks that the async engine's lock is free: another thread must be
    /// able to take it while the deinit runs.
    final class CheckingLockOnDeinit: Sendable {
        let lockWasFree: Collected<Bool>

        init(lockWasFree: Collected<Bool>) { self.lockWasFree = lockWasFree }

        deinit {
            let other = runOnThread { AsyncBuilds.lock.withLock {} }
            lockWasFree.append(other.wait(seconds: 5))
        }
    }

    final class Consumer: Sendable {}

    /// A graph-scoped instance that nothing else keeps is last released when the graph ends: its deinit, user
    /// code, runs after the engine's lock is released.
    @Test func aGraphScopedInstanceIsReleasedAfterTheLockWhenTheGraphEnds() async throws {
        let lockWasFree = Collected<Bool>()
        let container = Container()
        container.register(CheckingLockOnDeinit.self) { _ in
            await Task.yield()
            return CheckingLockOnDeinit(lockWasFree: lockWasFree)
        }
        container.register(Consumer.self) { r in
            _ = try await r.require(CheckingLockOnDeinit.self)
            return Consumer()
        }

        _ = try await container.async.require(Consumer.self)

        #expect(lockWasFree.values == [true])
    }

    /// Synchronous on purpose: no suspension point, so every call runs on one thread, whose spare it uses.
    @Test func anEndedGraphNothingRefersToStartsAgainAsANewGraph() {
        var graph = AsyncGraph.start(ResolutionState.current)
        let object = ObjectIdentifier(graph)
        let first = graph.id
        graph.end()
        AsyncGraph.recycle(&graph)

        let next = AsyncGraph.start(ResolutionState.current)
        defer { next.end() }

        #expect(ObjectIdentifier(next) == object)
        #expect(next.id != first)
        #expect(!next.ended)
        #if !(canImport(Darwin) || WEFT_LOCKED_ASYNC_STATE)
            let hasEnded = next.hasEnded.load(ordering: .acquiring)
            #expect(!hasEnded)
        #endif
    }

    @Test func anEndedGraphSomethingStillRefersToIsNotTakenAgain() {
        var graph = AsyncGraph.start(ResolutionState.current)
        let stillReferred = graph
        graph.end()
        AsyncGraph.recycle(&graph)

        let next = AsyncGraph.start(ResolutionState.current)
        defer { next.end() }

        #expect(next !== stillReferred)
        #expect(stillReferred.ended)
    }

    /// A context kept once its resolve ended (by a resolver a factory kept, or a task still running) keeps the
    /// top-level context, which owns the graph: the graph is then not the thread's spare.
    @Test func aGraphWhoseTopLevelContextIsStillReferredToIsNotTakenAgain() {
        let container = Container()
        var graph = AsyncGraph.start(ResolutionState.current)
        var context = AsyncContext.root(graph, container: container)
        let keptContext = context
        context.endResolution()
        AsyncContext.recycle(&context)
        let ended = graph
        AsyncGraph.recycle(&graph)

        let next = AsyncGraph.start(ResolutionState.current)
        defer { next.end() }

        #expect(next !== ended)
        #expect(!keptContext.isLive)
    }

    /// A finished build that only its graph referred to is kept with the graph when the graph becomes its thread's
    /// spare, and taken by the next resolve's first build of that graph, for another key; the instance it held is
    /// released when the graph ends, not kept until then.
    @Test func aFinishedBuildOnlyItsGraphReferredToIsTakenAgainWithoutItsInstance() {
        final class Instance {}
        let registration = Container().register(Int.self) { _ in 1 }
        var graph = AsyncGraph.start(ResolutionState.current)
        let object = ObjectIdentifier(graph)
        weak var released: Instance?
        let build = AsyncBuilds.lock.withLock {
            let build = graph.newBuildLocked(key: ServiceKey(serviceType: Int.self, argumentsType: Void.self))
            let instance = Instance()
            released = instance
            build.outcome = .made(Made(value: instance))
            graph.slots.insert(build, for: registration, publishes: false)
            return ObjectIdentifier(build)
        }
        graph.end()
        AsyncGraph.recycle(&graph)

        #expect(released == nil)
        let next = AsyncGraph.start(ResolutionState.current)
        defer { next.end() }
        #expect(!next.spareBuilds.isEmpty)
        let taken = AsyncBuilds.lock.withLock {
            next.newBuildLocked(key: ServiceKey(serviceType: String.self, argumentsType: Void.self))
        }
        #expect(ObjectIdentifier(next) == object)
        #expect(ObjectIdentifier(taken) == build)
        #expect(ObjectIdentifier(taken.key.serviceType) == ObjectIdentifier(String.self))
        #expect(taken.outcome == nil)
    }

    /// A build something other than its graph still refers to when the graph ends (a task that waited for it, a
    /// build that waits for it) is never taken again.
    @Test func aBuildSomethingStillRefersToIsNotTakenAgain() {
        let registration = Container().register(Int.self) { _ in 1 }
        var graph = AsyncGraph.start(ResolutionState.current)
        let stillReferred = AsyncBuilds.lock.withLock {
            let build = graph.newBuildLocked(key: ServiceKey(serviceType: Int.self, argumentsType: Void.self))
            build.outcome = .made(Made(value: 1))
            graph.slots.insert(build, for: registration, publishes: false)
            return build
        }
        graph.end()
        AsyncGraph.recycle(&graph)

        let next = AsyncGraph.start(ResolutionState.current)
        defer { next.end() }
        let taken = AsyncBuilds.lock.withLock {
            next.newBuildLocked(key: ServiceKey(serviceType: Int.self, argumentsType: Void.self))
        }
        #expect(taken !== stillReferred)
        #expect(stillReferred.outcome != nil)
    }

    /// One task's resolves, one after the other: the thread's spare graph is taken again each time, and each
    /// time its graph-scoped instances are new.
    @Test func successiveResolvesShareNoGraphScopedInstance() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in DiskStorage() }
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try await r.require((any Storage).self)) }

        var catalogs: [any Catalog] = []
        for _ in 0..<20 { catalogs.append(try await container.async.require((any Catalog).self)) }

        #expect(Set(catalogs.map { ObjectIdentifier($0.storage) }).count == catalogs.count)
    }

    /// Many concurrent top-level resolves, on every thread of the pool: each graph shares its graph-scoped
    /// instance within itself and with no other graph, whichever thread's spare it was.
    @Test func concurrentResolvesEachGetAGraphOfTheirOwn() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try await r.require((any Storage).self)) }
        container.register((any Checkout).self) { r in
            ShopCheckout(
                catalog: try await r.require((any Catalog).self), storage: try await r.require((any Storage).self))
        }
        let rounds = lighterUnderSanitizer(200)

        // The checkouts are kept until the end, so that no storage's identifier is a later one's.
        let checkouts = try await withThrowingTaskGroup(of: [any Checkout].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var checkouts: [any Checkout] = []
                    for _ in 0..<rounds {
                        let checkout = try await container.async.require((any Checkout).self)
                        #expect(checkout.storage === checkout.catalog.storage)
                        checkouts.append(checkout)
                    }
                    return checkouts
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }

        #expect(Set(checkouts.map { ObjectIdentifier($0.storage) }).count == 8 * rounds)
    }
}
