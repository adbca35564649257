import Testing
import Weft

/// A singleton made by an async factory records what its factory used, as a synchronous one does: replacing or
/// resetting a dependency made by an async factory discards it.
@Suite struct AsyncInvalidationTests {
    typealias Settings = GraphReuseInvalidationTests.Settings
    typealias Gateway = GraphReuseInvalidationTests.Gateway
    typealias Agent = GraphReuseInvalidationTests.Agent
    typealias Job = GraphReuseInvalidationTests.Job

    /// The shape of ``GraphReuseInvalidationTests/container(ids:)`` with async factories.
    static func asyncContainer(ids: Counter) -> Container {
        let container = Container()
        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: ids.increment()) }
            .inObjectScope(.container)
        container.register(Gateway.self) { (r: AsyncResolver) async throws in
            Gateway(settings: try await r.require(Settings.self))
        }
        .inObjectScope(.graph)
        container.register(Agent.self) { (r: AsyncResolver) async throws in
            Agent(gateway: try await r.require(Gateway.self))
        }
        .inObjectScope(.container)
        container.register(Job.self) { (r: AsyncResolver) async throws in
            let gateway = try await r.require(Gateway.self)
            return Job(gateway: gateway, agent: try await r.require(Agent.self))
        }
        return container
    }

    @Test(hangLimit)
    func replacingAnAsyncDependencyDiscardsTheAsyncSingletonMadeWithIt() async throws {
        let container = Container()
        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 1) }.inObjectScope(.container)
        container.register(Gateway.self) { (r: AsyncResolver) async throws in
            Gateway(settings: try await r.require(Settings.self))
        }
        .inObjectScope(.container)
        let before = try await container.async.require(Gateway.self)

        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 2) }.inObjectScope(.container)

        let after = try await container.async.require(Gateway.self)
        #expect(after !== before)
        #expect(after.settings.id == 2)
        #expect(try await container.async.require(Gateway.self) === after)
    }

    @Test(hangLimit)
    func replacingADependencyOfAGraphInstanceMadeInsideAnAsyncSingletonDiscardsTheSingleton() async throws {
        let container = Container()
        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 1) }.inObjectScope(.container)
        container.register(Gateway.self) { (r: AsyncResolver) async throws in
            Gateway(settings: try await r.require(Settings.self))
        }
        .inObjectScope(.graph)
        container.register(Agent.self) { (r: AsyncResolver) async throws in
            Agent(gateway: try await r.require(Gateway.self))
        }
        .inObjectScope(.container)
        let before = try await container.async.require(Agent.self)

        container.resetObjectScope(.container, serviceType: Settings.self)

        let after = try await container.async.require(Agent.self)
        #expect(after !== before)
        #expect(after.gateway.settings === (try await container.async.require(Settings.self)))
    }

    @Test(hangLimit)
    func replacingWhatAReusedAsyncGraphInstanceUsedDiscardsTheSingletonMadeWithIt() async throws {
        let container = Self.asyncContainer(ids: Counter())
        let job = try await container.async.require(Job.self)
        #expect(job.agent.gateway === job.gateway)
        #expect(job.agent.gateway.settings.id == 1)

        container.register(Settings.self) { (_: AsyncResolver) async in Settings(id: 100) }
            .inObjectScope(.container)

        let agent = try await container.async.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 100)
    }

    @Test(hangLimit)
    func resettingWhatAReusedAsyncGraphInstanceUsedDiscardsTheSingletonMadeWithIt() async throws {
        let container = Self.asyncContainer(ids: Counter())
        let job = try await container.async.require(Job.self)
        #expect(job.agent.gateway.settings.id == 1)

        container.resetObjectScope(.container, serviceType: Settings.self)

        let agent = try await container.async.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 2)
    }
}
