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

    final class Link: Sendable {
        let next: Link?
        init(next: Link?) { self.next = next }
    }

    /// A chain of `length` async registrations of `Link` named "0", "1", ...; the last one resolves `closing`'s
    /// name when given (closing a cycle), otherwise nothing.
    private func chain(length: Int, closingAt closing: Int? = nil) -> Container {
        let container = Container()
        for index in 0..<length {
            let next = index + 1 < length ? index + 1 : closing
            container.register(Link.self, name: "\(index)") { r in
                guard let next else { return Link(next: nil) }
                return Link(next: try await r.require(Link.self, name: "\(next)"))
            }.inObjectScope(.transient)
        }
        return container
    }

    // More registrations on one path than a path has bits to tell them apart: the cycle check must still tell a
    // registration on the path from one that merely shares its bit.
    @Test func aLongAsyncChainOfDistinctRegistrationsIsNoCycleAndClosingItIs() async throws {
        var link: Link? = try await chain(length: 200).async.require(Link.self, name: "0")
        var length = 0
        while let current = link {
            length += 1
            link = current.next
        }
        #expect(length == 200)

        let error = try await #require(throws: ResolutionError.self) {
            try await chain(length: 200, closingAt: 150).async.require(Link.self, name: "0")
        }
        #expect(error.reason == .circularDependency)
        #expect(error.path.count == 201)
        #expect(error.path.last == error.path[150])
    }

    @Test func namedStepsShowTheirNamesInThePath() async throws {
        let container = chain(length: 3)
        container.register(Link.self, name: "2") { _ in
            await Task.yield()
            throw Failure(code: 7)
        }.inObjectScope(.transient)

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Link.self, name: "0")
        }

        #expect(error.reason == .factoryFailed)
        #expect(error.path == ["Link[\"0\"]", "Link[\"1\"]", "Link[\"2\"]"])
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

    /// A container that nothing but its `async` resolver refers to stays alive until the request ends. Optimised,
    /// the resolver's `require` is inlined into this code, where the resolver was released after its first read
    /// of the container (release builds crashed in the container's lookups, on freed memory).
    @Test func aContainerOnlyItsAsyncResolverHoldsLivesUntilTheRequestEnds() async throws {
        for _ in 0..<200 {
            let checkout = try await transientShop().async.require((any Checkout).self)
            #expect(checkout.catalog.storage !== checkout.storage)
        }
    }
}
