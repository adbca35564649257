import Testing

@testable import Weft

/// An async resolve of a singleton that is already built reads it as a synchronous resolve does, without
/// starting an object graph: these are the cases where that read must answer with the right instance, or anew.
/// (A singleton whose callbacks still run is waited for: `AsyncCompletionTests`.)
@Suite struct AsyncSingletonReadTests {
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
}
