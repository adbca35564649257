import Testing
import Weft

/// A singleton that reuses a graph-scoped instance made earlier in its async graph holds what that instance was made
/// with: replacing or resetting one of those dependencies discards it, whichever engine made either of them, and
/// when the graph's child tasks made them.
@Suite struct AsyncGraphReuseInvalidationTests {
    typealias Settings = GraphReuseInvalidationTests.Settings
    typealias Gateway = GraphReuseInvalidationTests.Gateway
    typealias Agent = GraphReuseInvalidationTests.Agent
    typealias Job = GraphReuseInvalidationTests.Job

    /// A transient service between a graph-scoped one and the singleton it is made with.
    final class Relay: Sendable {
        let settings: Settings
        init(settings: Settings) { self.settings = settings }
    }

    /// A graph-scoped service made with another graph-scoped one.
    final class Hub: Sendable {
        let gateway: Gateway
        init(gateway: Gateway) { self.gateway = gateway }
    }

    /// The async `Job` of ``AsyncInvalidationTests``: the graph's `Gateway` first, then the `Agent` that reuses it.
    static func registerJob(in container: Container) {
        container.register(Job.self) { (r: AsyncResolver) async throws in
            let gateway = try await r.require(Gateway.self)
            return Job(gateway: gateway, agent: try await r.require(Agent.self))
        }
    }

    @Test(hangLimit)
    func resettingWhatASynchronousGraphFactoryUsedInAnAsyncResolveDiscardsTheAsyncSingletonReusingIt() async throws {
        let ids = Counter()
        let container = Container()
        container.register(Settings.self) { _ in Settings(id: ids.increment()) }.inObjectScope(.container)
        container.register(Gateway.self) { r in Gateway(settings: try r.require(Settings.self)) }
            .inObjectScope(.graph)
        container.register(Agent.self) { (r: AsyncResolver) async throws in
            Agent(gateway: try await r.require(Gateway.self))
        }
        .inObjectScope(.container)
        Self.registerJob(in: container)
        let job = try await container.async.require(Job.self)
        #expect(job.agent.gateway === job.gateway)

        container.resetObjectScope(.container, serviceType: Settings.self)

        let agent = try await container.async.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 2)
    }

    @Test(hangLimit)
    func replacingWhatAnAsyncGraphFactoryUsedDiscardsTheSynchronousSingletonReusingItInTheGraph() async throws {
        let container = Container()
        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 1) }.inObjectScope(.container)
        container.register(Gateway.self) { (r: AsyncResolver) async throws in
            Gateway(settings: try await r.require(Settings.self))
        }
        .inObjectScope(.graph)
        container.register(Agent.self) { r in Agent(gateway: try r.require(Gateway.self)) }.inObjectScope(.container)
        Self.registerJob(in: container)
        let job = try await container.async.require(Job.self)
        #expect(job.agent.gateway === job.gateway)

        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 2) }.inObjectScope(.container)

        // The synchronous `Agent` can only be made where an async resolve made the graph's `Gateway`: a new `Job`.
        let again = try await container.async.require(Job.self)
        #expect(again.agent !== job.agent)
        #expect(again.agent.gateway.settings.id == 2)
    }

    @Test(hangLimit)
    func resettingWhatASynchronousTransientMadeForAnAsyncGraphFactoryUsedDiscardsTheSingletonReusingIt() async throws {
        let ids = Counter()
        let container = Container()
        container.register(Settings.self) { _ in Settings(id: ids.increment()) }.inObjectScope(.container)
        container.register(Relay.self) { r in Relay(settings: try r.require(Settings.self)) }
        container.register(Gateway.self) { (r: AsyncResolver) async throws in
            Gateway(settings: try await r.require(Relay.self).settings)
        }
        .inObjectScope(.graph)
        container.register(Agent.self) { (r: AsyncResolver) async throws in
            Agent(gateway: try await r.require(Gateway.self))
        }
        .inObjectScope(.container)
        Self.registerJob(in: container)
        let job = try await container.async.require(Job.self)
        #expect(job.agent.gateway === job.gateway)

        container.resetObjectScope(.container, serviceType: Settings.self)

        let agent = try await container.async.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 2)
    }

    @Test(hangLimit)
    func replacingWhatChildTasksOfAGraphFactoryUsedDiscardsTheSingletonAChildTaskMadeReusingIt() async throws {
        let container = Container()
        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 1) }.inObjectScope(.container)
        container.register(Relay.self) { (r: AsyncResolver) async throws in
            Relay(settings: try await r.require(Settings.self))
        }
        container.register(Gateway.self) { (r: AsyncResolver) async throws in
            async let relay = r.require(Relay.self)
            async let settings = r.require(Settings.self)
            _ = try await settings
            return Gateway(settings: try await relay.settings)
        }
        .inObjectScope(.graph)
        container.register(Agent.self) { (r: AsyncResolver) async throws in
            Agent(gateway: try await r.require(Gateway.self))
        }
        .inObjectScope(.container)
        container.register(Job.self) { (r: AsyncResolver) async throws in
            async let gateway = r.require(Gateway.self)
            let made = try await gateway
            async let agent = r.require(Agent.self)
            return Job(gateway: made, agent: try await agent)
        }
        let job = try await container.async.require(Job.self)
        #expect(job.agent.gateway === job.gateway)

        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 2) }.inObjectScope(.container)

        let agent = try await container.async.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 2)
    }

    @Test(hangLimit)
    func replacingASingletonBuiltBeforeTheGraphThatAGraphFactoryReadDiscardsTheSingletonReusingIt() async throws {
        let container = AsyncInvalidationTests.asyncContainer(ids: Counter())
        let settings = try await container.async.require(Settings.self)
        let job = try await container.async.require(Job.self)
        #expect(job.gateway.settings === settings)
        #expect(job.agent.gateway === job.gateway)

        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 100) }
            .inObjectScope(.container)

        let agent = try await container.async.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 100)
    }

    @Test(hangLimit)
    func resettingWhatAGraphInstanceReusedByAnotherOneUsedDiscardsTheSingletonReusingTheOther() async throws {
        let ids = Counter()
        let container = Container()
        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: ids.increment()) }
            .inObjectScope(.container)
        container.register(Gateway.self) { (r: AsyncResolver) async throws in
            Gateway(settings: try await r.require(Settings.self))
        }
        .inObjectScope(.graph)
        container.register(Hub.self) { (r: AsyncResolver) async throws in
            Hub(gateway: try await r.require(Gateway.self))
        }
        .inObjectScope(.graph)
        container.register(Agent.self) { (r: AsyncResolver) async throws in
            Agent(gateway: try await r.require(Hub.self).gateway)
        }
        .inObjectScope(.container)
        container.register(Job.self) { (r: AsyncResolver) async throws in
            let gateway = try await r.require(Gateway.self)
            _ = try await r.require(Hub.self)
            return Job(gateway: gateway, agent: try await r.require(Agent.self))
        }
        let job = try await container.async.require(Job.self)
        #expect(job.agent.gateway === job.gateway)

        container.resetObjectScope(.container, serviceType: Settings.self)

        let agent = try await container.async.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 2)
    }
}
