import Testing

@testable import Weft

/// Graph-scoped registrations (the default scope) with `async` factories, which an async resolve of exactly their
/// type builds through the engine's typed entry: one instance per resolve, shared by everything the resolve makes,
/// one build for the child tasks that ask at once, and the same errors as every other async resolve.
@Suite struct AsyncGraphScopeTests {
    private func graphShop(storageMade: Counter = Counter()) -> Container {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            storageMade.increment()
            return DiskStorage()
        }
        container.register((any Catalog).self) { r in
            RemoteCatalog(storage: try await r.require((any Storage).self))
        }
        container.register((any Checkout).self) { r in
            ShopCheckout(
                catalog: try await r.require((any Catalog).self), storage: try await r.require((any Storage).self))
        }
        return container
    }

    @Test func aGraphScopedAsyncServiceIsMadeOncePerResolveAndSharedWithinIt() async throws {
        let made = Counter()
        let container = graphShop(storageMade: made)

        let checkout = try await container.async.require((any Checkout).self)
        let again = try await container.async.require((any Checkout).self)

        #expect(checkout.storage === checkout.catalog.storage)
        #expect(checkout.storage !== again.storage)
        #expect(made.value == 2)
    }

    @Test func childTasksAskingForTheGraphsInstanceAtOnceShareOneBuild() async throws {
        let made = Counter()
        let container = Container()
        container.register(Slow.self) { _ in
            made.increment()
            try await Task.sleep(for: .milliseconds(20))
            return Slow()
        }
        container.register(Pair.self) { r in
            async let first = r.require(Slow.self)
            async let second = r.require(Slow.self)
            return Pair(first: try await first, second: try await second)
        }

        let pair = try await container.async.require(Pair.self)

        #expect(pair.first === pair.second)
        #expect(made.value == 1)
    }

    @Test func aChildTaskWaitingForAFailedBuildBuildsTheInstanceItself() async throws {
        let attempts = Counter()
        let container = Container()
        container.register(Slow.self) { _ in
            if attempts.increment() == 1 {
                try await Task.sleep(for: .milliseconds(20))
                throw Refused()
            }
            return Slow()
        }
        container.register(Outcomes.self) { r in
            async let first = try? r.require(Slow.self)
            async let second = try? r.require(Slow.self)
            return Outcomes(made: [await first, await second].compactMap { $0 })
        }

        let outcomes = try await container.async.require(Outcomes.self)

        #expect(outcomes.made.count == 1)
        #expect(attempts.value == 2)
    }

    @Test func graphScopedAsyncFactoriesInACycleThrowWithThePath() async throws {
        let container = Container()
        container.register(Ping.self) { r in Ping(pong: try await r.require(Pong.self)) }
        container.register(Pong.self) { r in Pong(ping: try await r.require(Ping.self)) }

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Ping.self)
        }

        #expect(error.reason == .circularDependency)
        #expect(error.path == ["Ping", "Pong", "Ping"])
    }

    @Test func aFailingGraphScopedAsyncFactoryIsReportedWithItsPath() async throws {
        let container = graphShop()
        container.register((any Storage).self) { _ async throws -> any Storage in throw Refused() }

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Checkout).self)
        }

        #expect(error.reason == .factoryFailed)
        #expect(error.path == ["Checkout", "Catalog", "Storage"])
        #expect(error.underlyingError is Refused)
    }

    final class Slow: Sendable {}

    final class Pair: Sendable {
        let first: Slow
        let second: Slow
        init(first: Slow, second: Slow) { (self.first, self.second) = (first, second) }
    }

    final class Outcomes: Sendable {
        let made: [Slow]
        init(made: [Slow]) { self.made = made }
    }

    struct Refused: Error {}
}
