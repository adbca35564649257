import Testing

@testable import Weft

/// Transient registrations with `async` factories, which an async resolve of exactly their type builds through
/// the engine's typed entry: the same instances, checks and errors as every other async resolve.
@Suite struct AsyncTransientTests {
    private func transientShop() -> Container {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }.inObjectScope(.transient)
        container.register((any Catalog).self) { r in
            RemoteCatalog(storage: try await r.require((any Storage).self))
        }.inObjectScope(.transient)
        container.register((any Checkout).self) { r in
            ShopCheckout(
                catalog: try await r.require((any Catalog).self), storage: try await r.require((any Storage).self))
        }.inObjectScope(.transient)
        return container
    }

    @Test func everyRequestOfATransientAsyncServiceGetsANewInstance() async throws {
        let container = transientShop()

        let checkout = try await container.async.require((any Checkout).self)
        let again = try await container.async.require((any Checkout).self)

        #expect(checkout !== again)
        #expect(checkout.storage !== checkout.catalog.storage)
    }

    @Test func aTransientAsyncServiceResolvesUnderEveryTypeItImplements() async throws {
        let container = Container()
        container.register(DiskStorage.self) { _ in
            await Task.yield()
            return DiskStorage()
        }.inObjectScope(.transient).implements((any Storage).self)

        let storage = try await container.async.require((any Storage).self)
        let disk = try await container.async.require(DiskStorage.self)

        #expect(storage is DiskStorage)
        #expect(storage !== disk)
    }

    @Test func transientAsyncFactoriesInACycleThrowWithThePath() async throws {
        let container = Container()
        container.register(Ping.self) { r in Ping(pong: try await r.require(Pong.self)) }.inObjectScope(.transient)
        container.register(Pong.self) { r in Pong(ping: try await r.require(Ping.self)) }.inObjectScope(.transient)

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Ping.self)
        }

        #expect(error.reason == .circularDependency)
        #expect(error.path == ["Ping", "Pong", "Ping"])
    }

    @Test func aThrowingTransientAsyncFactoryFailsWithItsErrorAndPath() async throws {
        let container = transientShop()
        container.register((any Storage).self) { _ in
            await Task.yield()
            throw Failure(code: 3)
        }.inObjectScope(.transient)

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Checkout).self)
        }

        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError as? Failure == Failure(code: 3))
        #expect(error.path == ["Checkout", "Catalog", "Storage"])
        #expect(await container.async.resolve((any Checkout).self) == nil)
    }

    @Test func aResolverKeptByATransientFactoryResolvesOnItsOwnOnceTheFactoryReturned() async throws {
        let kept = Collected<AsyncResolver>()
        let container = Container()
        container.register((any Storage).self) { _ in DiskStorage() }.inObjectScope(.graph)
        container.register((any Catalog).self) { r in
            kept.append(r)
            return RemoteCatalog(storage: try await r.require((any Storage).self))
        }.inObjectScope(.transient)

        let catalog = try await container.async.require((any Catalog).self)
        let resolver = try #require(kept.values.first)
        let later = try await resolver.require((any Storage).self)

        // A new graph: not the graph-scoped storage of the catalog's resolve.
        #expect(later !== catalog.storage)
        // The kept resolver holds the container, whose factory holds `kept`: break the cycle.
        kept.removeAll()
    }

    @Test func aTransientAsyncServiceOfTheWrongTypeIsATypeMismatch() async throws {
        let container = Container()
        container.register(Pong.self) { _ in Pong(ping: nil) }.inObjectScope(.transient)
        container.register(Pong.self, name: "other") { _ in Pong(ping: nil) }
            .inObjectScope(.transient)
            .implements(Ping.self)

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Ping.self)
        }

        #expect(error.reason == .typeMismatch)
        #expect(error.path == ["Ping"])
    }
}
