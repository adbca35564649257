import Testing
import Weft

/// A `Lazy` resolved by an `async` factory makes its instance in the factory's graph, as one resolved by a
/// synchronous factory does: asked while that graph's resolve goes on, it shares the graph's `.graph` instances,
/// whichever engine made them and whether they were made before or after the `Lazy` was resolved.
@Suite struct AsyncLazyWrapperGraphTests {
    /// A graph-scoped service.
    final class Gateway: Sendable {}

    /// What a factory made directly and through its `Lazy`.
    final class Holder: Sendable {
        let direct: Gateway
        let lazy: Gateway
        init(direct: Gateway, lazy: Gateway) {
            self.direct = direct
            self.lazy = lazy
        }
    }

    @Test(hangLimit)
    func aLazyFindsAGraphInstanceAnAsyncFactoryMadeAfterTheLazyWasResolved() async throws {
        let made = Counter()
        let container = Container()
        container.register(Gateway.self) { (_: AsyncResolver) async in
            made.increment()
            return Gateway()
        }
        .inObjectScope(.graph)
        container.register(Holder.self) { (r: AsyncResolver) async throws in
            let lazy = try await r.require(Lazy<Gateway>.self)
            let direct = try await r.require(Gateway.self)
            return Holder(direct: direct, lazy: try lazy.get())
        }
        let holder = try await container.async.require(Holder.self)
        #expect(holder.lazy === holder.direct)
        #expect(made.value == 1)
    }

    @Test(hangLimit)
    func aLazyAskedBeforeTheGraphMadeTheInstanceMakesTheOneTheGraphThenUses() async throws {
        let made = Counter()
        let container = Container()
        container.register(Gateway.self) { _ in
            made.increment()
            return Gateway()
        }
        .inObjectScope(.graph)
        container.register(Holder.self) { (r: AsyncResolver) async throws in
            let lazy = try await r.require(Lazy<Gateway>.self)
            let early = try lazy.get()
            let direct = try await r.require(Gateway.self)
            return Holder(direct: direct, lazy: early)
        }
        let holder = try await container.async.require(Holder.self)
        #expect(holder.lazy === holder.direct)
        #expect(made.value == 1)
    }

    @Test(hangLimit)
    func aLazyOfASynchronousServiceUsesTheGraphInstanceAnAsyncFactoryMade() async throws {
        final class Client: Sendable {
            let gateway: Gateway
            init(gateway: Gateway) { self.gateway = gateway }
        }
        final class Owner: Sendable {
            let gateway: Gateway
            let client: Client
            init(gateway: Gateway, client: Client) {
                self.gateway = gateway
                self.client = client
            }
        }
        let container = Container()
        container.register(Gateway.self) { (_: AsyncResolver) async in Gateway() }.inObjectScope(.graph)
        container.register(Client.self) { r in Client(gateway: try r.require(Gateway.self)) }
        container.register(Owner.self) { (r: AsyncResolver) async throws in
            let client = try await r.require(Lazy<Client>.self)
            let gateway = try await r.require(Gateway.self)
            return Owner(gateway: gateway, client: try client.get())
        }
        let owner = try await container.async.require(Owner.self)
        #expect(owner.client.gateway === owner.gateway)
    }
}
