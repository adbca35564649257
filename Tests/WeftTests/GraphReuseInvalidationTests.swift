import Testing
import Weft

/// A singleton made with a graph-scoped instance that its graph had made before (outside any singleton's
/// build) still counts as made with what that instance used: replacing or resetting one of those discards it.
@Suite struct GraphReuseInvalidationTests {
    final class Settings: Sendable {
        let id: Int
        init(id: Int) { self.id = id }
    }
    /// Graph-scoped: made once per graph with a Settings.
    final class Gateway: Sendable {
        let settings: Settings
        init(settings: Settings) { self.settings = settings }
    }
    /// A singleton holding a Gateway.
    final class Agent: Sendable {
        let gateway: Gateway
        init(gateway: Gateway) { self.gateway = gateway }
    }
    /// Transient: asks for the Gateway first, then the Agent, so that the Agent reuses the graph's Gateway.
    final class Job: Sendable {
        let gateway: Gateway
        let agent: Agent
        init(gateway: Gateway, agent: Agent) {
            self.gateway = gateway
            self.agent = agent
        }
    }

    /// Settings (`.container`, ids from `ids`) <- Gateway (`.graph`) <- Agent (`.container`), and a transient Job
    /// that resolves the Gateway before the Agent.
    static func container(ids: Counter) -> Container {
        let container = Container()
        container.register(Settings.self) { _ in Settings(id: ids.increment()) }.inObjectScope(.container)
        container.register(Gateway.self) { r in Gateway(settings: try r.require(Settings.self)) }
            .inObjectScope(.graph)
        container.register(Agent.self) { r in Agent(gateway: try r.require(Gateway.self)) }
            .inObjectScope(.container)
        container.register(Job.self) { r in
            let gateway = try r.require(Gateway.self)
            return Job(gateway: gateway, agent: try r.require(Agent.self))
        }
        return container
    }

    @Test func replacingWhatAReusedGraphInstanceUsedDiscardsTheSingletonMadeWithIt() throws {
        let container = Self.container(ids: Counter())
        let job = try container.require(Job.self)
        #expect(job.agent.gateway === job.gateway)
        #expect(job.agent.gateway.settings.id == 1)

        container.register(Settings.self) { _ in Settings(id: 100) }.inObjectScope(.container)

        let agent = try container.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 100)
        #expect(try container.require(Agent.self) === agent)
    }

    @Test func resettingWhatAReusedGraphInstanceUsedDiscardsTheSingletonMadeWithIt() throws {
        let container = Self.container(ids: Counter())
        let job = try container.require(Job.self)
        #expect(job.agent.gateway.settings.id == 1)

        container.resetObjectScope(.container, serviceType: Settings.self)

        let agent = try container.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 2)
        #expect(agent.gateway.settings === (try container.require(Settings.self)))
    }

    @Test func aReusedGraphInstanceMadeOfTransientsAloneKeepsTheSingleton() throws {
        // Nothing the Gateway used is kept anywhere: replacing an unrelated registration keeps the Agent.
        let container = Self.container(ids: Counter())
        container.register(Settings.self) { _ in Settings(id: 7) }
        let job = try container.require(Job.self)
        container.register(String.self) { _ in "unrelated" }

        #expect(try container.require(Agent.self) === job.agent)
    }

    @Test func aGraphInstanceMadeForOneSingletonAndReusedByAnotherDiscardsBothWhenWhatItUsedIsReplaced() throws {
        // The Gateway is made inside the first singleton's build (what it uses is recorded for that one) and then
        // reused by the second.
        final class Pair: Sendable {
            let first: Agent
            let second: Agent
            init(first: Agent, second: Agent) {
                self.first = first
                self.second = second
            }
        }
        let container = Self.container(ids: Counter())
        container.register(Agent.self, name: "second") { r in Agent(gateway: try r.require(Gateway.self)) }
            .inObjectScope(.container)
        container.register(Pair.self) { r in
            Pair(first: try r.require(Agent.self), second: try r.require(Agent.self, name: "second"))
        }
        let pair = try container.require(Pair.self)
        #expect(pair.first.gateway === pair.second.gateway)

        container.register(Settings.self) { _ in Settings(id: 100) }.inObjectScope(.container)

        #expect(try container.require(Agent.self).gateway.settings.id == 100)
        #expect(try container.require(Agent.self, name: "second").gateway.settings.id == 100)
    }

    @Test func whatAReusedGraphInstanceUsedThroughAnotherReusedOneCounts() throws {
        // Relay (.graph) is made first; the Gateway, made next, reuses it; the Agent reuses the Gateway.
        final class Relay: Sendable {
            let settings: Settings
            init(settings: Settings) { self.settings = settings }
        }
        let container = Container()
        container.register(Settings.self) { _ in Settings(id: 1) }.inObjectScope(.container)
        container.register(Relay.self) { r in Relay(settings: try r.require(Settings.self)) }.inObjectScope(.graph)
        container.register(Gateway.self) { r in Gateway(settings: try r.require(Relay.self).settings) }
            .inObjectScope(.graph)
        container.register(Agent.self) { r in Agent(gateway: try r.require(Gateway.self)) }
            .inObjectScope(.container)
        container.register(Job.self) { r in
            _ = try r.require(Relay.self)
            let gateway = try r.require(Gateway.self)
            return Job(gateway: gateway, agent: try r.require(Agent.self))
        }
        let job = try container.require(Job.self)

        container.register(Settings.self) { _ in Settings(id: 2) }.inObjectScope(.container)

        let agent = try container.require(Agent.self)
        #expect(agent !== job.agent)
        #expect(agent.gateway.settings.id == 2)
    }
}
