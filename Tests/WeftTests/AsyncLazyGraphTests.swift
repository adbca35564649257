import Testing

@testable import Weft

/// A top-level async resolve of a transient service starts without an object graph, and makes one when its first
/// request needs one: that graph is the whole resolve's, whichever step (or child task of a factory) makes it, and
/// ends with the resolve.
@Suite struct AsyncLazyGraphTests {
    /// Two graph-scoped instances asked for by one factory: the same when they come from one graph.
    final class Pair: Sendable {
        let first: any Storage
        let second: any Storage
        init(_ first: any Storage, _ second: any Storage) {
            self.first = first
            self.second = second
        }
    }

    @Test func childTasksOfATransientFactoryAskingAtOnceShareOneGraphInstance() async throws {
        let made = Counter()
        let container = Container()
        container.register((any Storage).self) { _ in
            made.increment()
            await Task.yield()
            return DiskStorage()
        }
        container.register(Pair.self) { r in
            async let first = r.require((any Storage).self)
            async let second = r.require((any Storage).self)
            return Pair(try await first, try await second)
        }.inObjectScope(.transient)

        for _ in 0..<200 {
            let pair = try await container.async.require(Pair.self)
            #expect(pair.first === pair.second)
        }
        #expect(made.value == 200)
    }

    @Test func transientStepsAskingForAGraphInstanceShareItWithinTheResolveOnly() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in DiskStorage() }
        container.register((any Catalog).self) { r in
            RemoteCatalog(storage: try await r.require((any Storage).self))
        }.inObjectScope(.transient)
        container.register((any Checkout).self) { r in
            ShopCheckout(
                catalog: try await r.require((any Catalog).self), storage: try await r.require((any Storage).self))
        }.inObjectScope(.transient)

        let checkout = try await container.async.require((any Checkout).self)
        let next = try await container.async.require((any Checkout).self)

        #expect(checkout.catalog.storage === checkout.storage)
        #expect(next.storage !== checkout.storage)
    }

    @Test func aSynchronousFactoryReachedFromATransientStepSharesTheGraphWithAsyncOnes() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in DiskStorage() }
        container.register((any Catalog).self) { r in
            await Task.yield()
            return RemoteCatalog(storage: try await r.require((any Storage).self))
        }
        container.register((any Checkout).self) { r in
            let storage = try await r.require((any Storage).self)
            return ShopCheckout(catalog: try await r.require((any Catalog).self), storage: storage)
        }.inObjectScope(.transient)

        let checkout = try await container.async.require((any Checkout).self)

        #expect(checkout.catalog.storage === checkout.storage)
    }

    @Test func aResolverKeptFromATransientResolveResolvesOnItsOwnOnceTheResolveEnded() async throws {
        let kept = Collected<AsyncResolver>()
        let container = Container()
        container.register((any Storage).self) { _ in DiskStorage() }
        container.register((any Catalog).self) { r in
            kept.append(r)
            return RemoteCatalog(storage: DiskStorage())
        }.inObjectScope(.transient)

        _ = try await container.async.require((any Catalog).self)
        let resolver = try #require(kept.values.first)
        let first = try await resolver.require((any Storage).self)
        let second = try await resolver.require((any Storage).self)

        #expect(first !== second)
        // The kept resolver holds the container, whose factory holds `kept`: break the cycle.
        kept.removeAll()
    }

    @Test func aThrowingTopLevelTransientFactoryFailsWithItsErrorAndItsOwnPath() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            throw Failure(code: 7)
        }.inObjectScope(.transient)

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Storage).self)
        }

        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError as? Failure == Failure(code: 7))
        #expect(error.path == ["Storage"])
        #expect(await container.async.resolve((any Storage).self) == nil)
    }

    @Test func aResolutionErrorFromATopLevelTransientFactoryKeepsItsPath() async throws {
        let container = Container()
        container.register((any Catalog).self) { r in
            RemoteCatalog(storage: try await r.require((any Storage).self))
        }.inObjectScope(.transient)

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Catalog).self)
        }

        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Catalog", "Storage"])
    }
}
