import Testing
import Weft

/// Decorators in an async object graph: the synchronous code an async decorator's chain calls (the service's
/// synchronous factory, a synchronous decorator) resolves inside the same graph, so graph-scoped instances are
/// shared with the rest of the graph, as they are for any synchronous factory reached from async code.
@Suite struct AsyncDecoratorGraphTests {
    final class Shared {}

    final class Service {
        let shared: Shared
        init(shared: Shared) { self.shared = shared }
    }

    final class Root {
        let service: Service
        let shared: Shared
        init(service: Service, shared: Shared) {
            self.service = service
            self.shared = shared
        }
    }

    /// `Root` asks for `Service` and for `Shared`, both in the default `.graph` scope.
    private func registerRoot(in container: Container) {
        container.register(Shared.self) { _ in Shared() }
        container.register(Root.self) { r in
            Root(service: try await r.require(Service.self), shared: try await r.require(Shared.self))
        }
    }

    @Test func synchronousFactoryBehindAnAsyncDecoratorSharesTheGraphsInstances() async throws {
        let container = Container()
        registerRoot(in: container)
        container.register(Service.self) { r in Service(shared: try r.require()) }
        container.decorate(Service.self) { _, inner in
            await Task.yield()
            return inner
        }

        let root = try await container.async.require(Root.self)
        #expect(root.service.shared === root.shared)
    }

    @Test func synchronousDecoratorOfAnAsyncRegistrationResolvesInTheGraph() async throws {
        let container = Container()
        registerRoot(in: container)
        container.register(Service.self) { r in Service(shared: try await r.require()) }
        let seen = Box()
        container.decorate(Service.self) { r, inner in
            seen.shared = try r.require(Shared.self)
            return inner
        }

        let root = try await container.async.require(Root.self)
        #expect(seen.shared === root.shared)
        #expect(root.service.shared === root.shared)
    }

    @Test func synchronousDecoratorAfterAnAsyncOneResolvesInTheGraph() async throws {
        let container = Container()
        registerRoot(in: container)
        container.register(Service.self) { r in Service(shared: try r.require()) }
        container.decorate(Service.self) { _, inner in
            await Task.yield()
            return inner
        }
        let seen = Box()
        container.decorate(Service.self) { r, inner in
            seen.shared = try r.require(Shared.self)
            return inner
        }

        let root = try await container.async.require(Root.self)
        #expect(seen.shared === root.shared)
    }

    final class Box: @unchecked Sendable {
        var shared: Shared?
    }
}
