import Testing
import Weft

/// A `Provider` resolved by an `async` factory makes its instances as the same provider resolved by the same
/// factory written synchronously does: in the factory's graph while that graph's resolve goes on (sharing its
/// `.graph` instances, a new instance of a transient service on every `get()`), in a new graph once it has ended.
@Suite struct AsyncProviderGraphTests {
    /// A graph-scoped service.
    final class Gateway: Sendable {}

    /// A transient service made with the graph's `Gateway`.
    final class Worker: Sendable {
        let gateway: Gateway
        init(gateway: Gateway) { self.gateway = gateway }
    }

    /// What a factory made with its providers, and the providers, kept for after the resolve.
    final class Spawner: Sendable {
        let direct: Gateway
        let provided: Gateway
        let workers: [Worker]
        let gateways: Provider<Gateway>
        init(direct: Gateway, provided: Gateway, workers: [Worker], gateways: Provider<Gateway>) {
            self.direct = direct
            self.provided = provided
            self.workers = workers
            self.gateways = gateways
        }
    }

    /// `Gateway` (`.graph`) and `Worker` (transient), with synchronous factories.
    static func container() -> Container {
        let container = Container()
        container.register(Gateway.self) { _ in Gateway() }.inObjectScope(.graph)
        container.register(Worker.self) { r in Worker(gateway: try r.require(Gateway.self)) }
            .inObjectScope(.transient)
        return container
    }

    /// What both engines must agree on for a `Spawner` made in one resolve and its providers used after it.
    static func expectProvidersShareTheFactorysGraph(_ spawner: Spawner) throws {
        #expect(spawner.provided === spawner.direct)
        #expect(spawner.workers.count == 2)
        #expect(spawner.workers[0] !== spawner.workers[1])
        #expect(spawner.workers.allSatisfy { $0.gateway === spawner.direct })
        // After the resolve: a new graph, as outside any resolve.
        let later = try spawner.gateways.get()
        #expect(later !== spawner.direct)
        #expect(try spawner.gateways.get() !== later)
    }

    @Test func aProviderInASynchronousFactorySharesTheFactorysGraphWhileItIsResolved() throws {
        let container = Self.container()
        container.register(Spawner.self) { r in
            let gateways = try r.require(Provider<Gateway>.self)
            let workers = try r.require(Provider<Worker>.self)
            let direct = try r.require(Gateway.self)
            return Spawner(
                direct: direct, provided: try gateways.get(), workers: [try workers.get(), try workers.get()],
                gateways: gateways)
        }
        try Self.expectProvidersShareTheFactorysGraph(try container.require(Spawner.self))
    }

    @Test(hangLimit)
    func aProviderInAnAsyncFactorySharesTheFactorysGraphAsInASynchronousOne() async throws {
        let container = Self.container()
        container.register(Spawner.self) { (r: AsyncResolver) async throws in
            let gateways = try await r.require(Provider<Gateway>.self)
            let workers = try await r.require(Provider<Worker>.self)
            let direct = try await r.require(Gateway.self)
            return Spawner(
                direct: direct, provided: try gateways.get(), workers: [try workers.get(), try workers.get()],
                gateways: gateways)
        }
        try Self.expectProvidersShareTheFactorysGraph(try await container.async.require(Spawner.self))
    }

    @Test(hangLimit)
    func aProviderAskedBeforeTheGraphMadeTheInstanceMakesTheOneTheGraphThenUses() async throws {
        let made = Counter()
        let container = Container()
        container.register(Gateway.self) { _ in
            made.increment()
            return Gateway()
        }
        .inObjectScope(.graph)
        container.register(Spawner.self) { (r: AsyncResolver) async throws in
            let gateways = try await r.require(Provider<Gateway>.self)
            let provided = try gateways.get()
            let direct = try await r.require(Gateway.self)
            return Spawner(direct: direct, provided: provided, workers: [], gateways: gateways)
        }
        let spawner = try await container.async.require(Spawner.self)
        #expect(spawner.provided === spawner.direct)
        #expect(made.value == 1)
    }

    @Test(hangLimit)
    func aProviderFindsAGraphInstanceAnAsyncFactoryMadeAfterTheProviderWasResolved() async throws {
        let container = Container()
        container.register(Gateway.self) { (_: AsyncResolver) async in Gateway() }.inObjectScope(.graph)
        container.register(Spawner.self) { (r: AsyncResolver) async throws in
            let gateways = try await r.require(Provider<Gateway>.self)
            let direct = try await r.require(Gateway.self)
            return Spawner(direct: direct, provided: try gateways.get(), workers: [], gateways: gateways)
        }
        let spawner = try await container.async.require(Spawner.self)
        #expect(spawner.provided === spawner.direct)
    }
}
