import Foundation
import Testing

@testable import Weft

/// A graph-scoped service with a synchronous factory, reached from several child tasks of one async factory at the
/// same time: the tasks run their synchronous parts on different threads, and the graph still has one instance.
@Suite struct AsyncGraphSynchronousBuildTests {
    /// A container whose graph-scoped `Storage` has a slow synchronous factory, counted by `made`; `failFirst` makes
    /// its first call throw; `overlaps` counts the calls that started while another ran.
    private func container(made: Counter, overlaps: Counter = Counter(), failFirst: Bool = false) -> Container {
        let container = Container()
        let running = Counter()
        container.register((any Storage).self) { _ in
            let call = made.increment()
            if running.increment() > 1 { overlaps.increment() }
            defer { running.decrement() }
            usleep(30_000)
            if failFirst, call == 1 { throw Failure(code: 1) }
            return DiskStorage()
        }
        return container
    }

    @Test func concurrentChildTasksShareTheGraphInstanceOfASynchronousFactory() async throws {
        let made = Counter()
        let container = container(made: made)
        container.register((any Checkout).self) { r in
            async let catalog = RemoteCatalog(storage: try await r.require((any Storage).self))
            async let storage = r.require((any Storage).self)
            return ShopCheckout(catalog: try await catalog, storage: try await storage)
        }
        let checkout = try await container.async.require((any Checkout).self)
        #expect(checkout.catalog.storage === checkout.storage)
        #expect(made.value == 1)
    }

    @Test func synchronousFactoriesOnConcurrentChildTasksShareOneGraphInstance() async throws {
        let made = Counter()
        let container = container(made: made)
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try r.require((any Storage).self)) }
        container.register(Shelf.self) { r in Shelf(storage: try r.require((any Storage).self)) }
        container.register((any Checkout).self) { r in
            async let catalog = r.require((any Catalog).self)
            async let shelf = r.require(Shelf.self)
            let storage = try await shelf.storage
            return ShopCheckout(catalog: try await catalog, storage: storage)
        }
        let checkout = try await container.async.require((any Checkout).self)
        #expect(checkout.catalog.storage === checkout.storage)
        #expect(made.value == 1)
    }

    @Test func manyChildTasksOfOneGraphMakeOneInstanceAndEachGraphItsOwn() async throws {
        let made = Counter()
        let container = container(made: made)
        container.register(Shelf.self) { r in Shelf(storage: try r.require((any Storage).self)) }
        container.register([any Storage].self) { r in
            try await withThrowingTaskGroup(of: (any Storage).self) { group in
                for child in 0..<8 {
                    group.addTask {
                        if child.isMultiple(of: 2) { return try await r.require((any Storage).self) }
                        return try await r.require(Shelf.self).storage
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Each graph's instances are kept, so that no identity is reused by a later graph's instance.
        var graphs: [[any Storage]] = []
        for _ in 0..<3 {
            let seen = try await container.async.require([any Storage].self)
            #expect(seen.count == 8)
            #expect(Set(seen.map(ObjectIdentifier.init)).count == 1)
            graphs.append(seen)
        }
        #expect(made.value == 3)
        #expect(Set(graphs.compactMap(\.first).map(ObjectIdentifier.init)).count == 3)
    }

    @Test func aChildTaskWaitingForAFailedSynchronousGraphBuildMakesTheInstanceItself() async throws {
        let made = Counter()
        let overlaps = Counter()
        let container = container(made: made, overlaps: overlaps, failFirst: true)
        container.register(Shelf.self) { r in Shelf(storage: try r.require((any Storage).self)) }
        container.register([any Storage].self) { r in
            async let direct = try? r.require((any Storage).self)
            async let shelf = try? r.require(Shelf.self)
            return [await direct, await shelf?.storage].compactMap { $0 }
        }
        let stores = try await container.async.require([any Storage].self)
        // One child's build failed; the other, which waited for it (no call overlapped), made the graph's instance.
        #expect(stores.count == 1)
        #expect(made.value == 2)
        #expect(overlaps.value == 0)
    }

    @Test(hangLimit)
    func childTasksBuildingBothEndsOfASynchronousCycleFailInsteadOfHanging() async throws {
        let container = Container()
        container.register(Left.self) { r in
            usleep(20_000)
            return Left(right: try r.require(Right.self))
        }
        container.register(Right.self) { r in
            usleep(20_000)
            return Right(left: try r.require(Left.self))
        }
        container.register(String.self) { r in
            async let left = error { _ = try await r.require(Left.self) }
            async let right = error { _ = try await r.require(Right.self) }
            let errors = await [left, right]
            for error in errors {
                #expect((error as? ResolutionError)?.reason == .circularDependency)
            }
            return "done"
        }
        #expect(try await container.async.require(String.self) == "done")
    }
}

private final class Shelf: Sendable {
    let storage: any Storage
    init(storage: any Storage) { self.storage = storage }
}

private final class Left: Sendable {
    let right: Right
    init(right: Right) { self.right = right }
}

private final class Right: Sendable {
    let left: Left
    init(left: Left) { self.left = left }
}

/// What `body` throws; nil when it returns.
private func error(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}
