import Testing

@testable import Weft

/// A top-level async resolve of what needs no async object graph, a built singleton or a service whose
/// factory is synchronous, is answered as a synchronous resolve would answer it: the same instances and the same
/// errors as through the async engine. (A singleton whose callbacks still run is waited for:
/// `AsyncCompletionTests`; a singleton another thread builds is awaited without blocking: `SyncBuildAwaitingTests`.)
@Suite struct AsyncWithoutGraphTests {
    @Test func aBuiltSingletonIsTheSameInstanceForSyncAndAsyncResolves() async throws {
        let made = Counter()
        let container = Container()
        container.register((any Storage).self) { _ in
            made.increment()
            return DiskStorage()
        }.inObjectScope(.container)
        container.register((any Catalog).self) { r in
            await Task.yield()
            made.increment()
            return RemoteCatalog(storage: try await r.require((any Storage).self))
        }.inObjectScope(.container)

        let catalog = try await container.async.require((any Catalog).self)
        let again = try await container.async.require((any Catalog).self)
        let storage = try await container.async.require((any Storage).self)

        #expect(catalog === again)
        #expect(storage === catalog.storage)
        #expect(try container.require((any Storage).self) === storage)
        #expect(made.value == 2)
    }

    @Test func aResetOrReplacedSingletonIsMadeAnewForTheNextAsyncResolve() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }.inObjectScope(.container)
        let first = try await container.async.require((any Storage).self)

        container.resetObjectScope(.container)
        let afterReset = try await container.async.require((any Storage).self)
        container.register((any Storage).self) { _ in DiskStorage() }.inObjectScope(.container)
        let afterReplace = try await container.async.require((any Storage).self)

        #expect(afterReset !== first)
        #expect(afterReplace !== afterReset)
        #expect(try await container.async.require((any Storage).self) === afterReplace)
    }

    @Test func aScopedInstanceIsReadFromItsScopeUntilTheScopeEnds() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }.inObjectScope(.scoped)
        let scope = container.makeScope()
        let other = container.makeScope()

        let storage = try await scope.async.require((any Storage).self)
        #expect(try await scope.async.require((any Storage).self) === storage)
        #expect(try await other.async.require((any Storage).self) !== storage)

        try await scope.end()
        let error = try await #require(throws: ResolutionError.self) {
            try await scope.async.require((any Storage).self)
        }
        #expect(error.reason == .scopeEnded)
        try await other.end()
    }

    @Test func aSynchronousFactorySharesGraphInstancesWithinOneAsyncResolveOnly() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in DiskStorage() }
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try r.require((any Storage).self)) }
        container.register((any Checkout).self) { r in
            ShopCheckout(catalog: try r.require((any Catalog).self), storage: try r.require((any Storage).self))
        }

        let checkout = try await container.async.require((any Checkout).self)
        let again = try await container.async.require((any Checkout).self)

        #expect(checkout.storage === checkout.catalog.storage)
        #expect(again.storage !== checkout.storage)
    }

    @Test func aSynchronousFactoryFailsWithThePathAndReasonOfAnAsyncResolve() async throws {
        let container = Container()
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try r.require((any Storage).self)) }
        let missing = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Catalog).self)
        }
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }
        let needsAsync = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Catalog).self)
        }

        #expect(missing.reason == .missingRegistration)
        #expect(missing.path == ["Catalog", "Storage"])
        #expect(needsAsync.reason == .requiresAsync)
        #expect(needsAsync.path == ["Catalog", "Storage"])
        #expect(await container.async.resolve((any Catalog).self) == nil)
    }
}
