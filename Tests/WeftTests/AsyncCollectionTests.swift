import Testing
import Weft

/// Collections with elements whose factories are `async`: resolved with `container.async`, each element in its
/// own scope; a synchronous resolve fails as one of any async registration does.
@Suite struct AsyncCollectionTests {
    protocol Plugin: AnyObject, Sendable { var id: String { get } }

    final class NamedPlugin: Plugin {
        let id: String
        init(_ id: String) { self.id = id }
    }

    final class Config: Sendable {}

    final class RemotePlugin: Plugin {
        let id = "remote"
        let config: Config
        init(config: Config) { self.config = config }
    }

    final class Host: Sendable {
        let plugins: [any Plugin]
        init(plugins: [any Plugin]) { self.plugins = plugins }
    }

    @Test func listWithAnAsyncElementResolvesEveryElementInOrderFromAsyncCode() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("first") }
        container.contribute(to: [any Plugin].self) { _ in
            await Task.yield()
            return NamedPlugin("async")
        }
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("last") }

        let plugins = try await container.async.require([any Plugin].self)
        #expect(plugins.map(\.id) == ["first", "async", "last"])
    }

    @Test func asyncElementResolvesItsDependenciesAsynchronously() async throws {
        let container = Container()
        container.register(Config.self) { _ in
            await Task.yield()
            return Config()
        }.inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { r in RemotePlugin(config: try await r.require(Config.self)) }

        let plugins = try await container.async.require([any Plugin].self)
        let config = try await container.async.require(Config.self)
        #expect((plugins.first as? RemotePlugin)?.config === config)
    }

    @Test func eachElementOfAnAsyncListKeepsItsOwnScope() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in
            await Task.yield()
            return NamedPlugin("kept")
        }.inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { _ in
            await Task.yield()
            return NamedPlugin("fresh")
        }.inObjectScope(.transient)
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("sync kept") }.inObjectScope(.container)

        let first = try await container.async.require([any Plugin].self)
        let second = try await container.async.require([any Plugin].self)
        #expect(first[0] === second[0])
        #expect(first[1] !== second[1])
        #expect(first[2] === second[2])
    }

    @Test func asyncSingletonElementIsMadeOnceWhenManyTasksResolveTheList() async throws {
        let container = Container()
        let made = Counter()
        container.contribute(to: [any Plugin].self) { _ in
            made.increment()
            await Task.yield()
            return NamedPlugin("shared")
        }
        .inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("fresh") }.inObjectScope(.transient)

        let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<32 {
                group.addTask { ObjectIdentifier(try await container.async.require([any Plugin].self)[0]) }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(identities.count == 1)
        #expect(made.value == 1)
    }

    @Test func synchronousResolveOfAListWithAnAsyncElementFailsAsForAnyAsyncRegistration() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("sync") }
        container.contribute(to: [any Plugin].self) { _ in
            await Task.yield()
            return NamedPlugin("async")
        }

        let error = try #require(throws: ResolutionError.self) { try container.require([any Plugin].self) }
        #expect(error.reason == .requiresAsync)
        #expect(container.resolve([any Plugin].self) == nil)
    }

    @Test func synchronousResolveReturnsAnAsyncSingletonElementAnAsyncResolveMade() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in
            await Task.yield()
            return NamedPlugin("async")
        }
        .inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("sync") }

        let made = try await container.async.require([any Plugin].self)
        let again = try container.require([any Plugin].self)
        #expect(again.map(\.id) == ["async", "sync"])
        #expect(again[0] === made[0])
    }

    @Test func asyncFactoryTakesAListWithAnAsyncElement() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in
            await Task.yield()
            return NamedPlugin("async")
        }
        container.register(Host.self) { r in Host(plugins: try await r.require([any Plugin].self)) }

        #expect(try await container.async.require(Host.self).plugins.map(\.id) == ["async"])
    }

    @Test func mapWithAnAsyncElementResolvesFromAsyncCode() async throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "sync") { _ in NamedPlugin("s") }
        container.contribute(to: [String: any Plugin].self, key: "async") { _ in
            await Task.yield()
            return NamedPlugin("a")
        }

        let map = try await container.async.require([String: any Plugin].self)
        #expect(map.mapValues(\.id) == ["sync": "s", "async": "a"])
        #expect(throws: ResolutionError.self) { try container.require([String: any Plugin].self) }
    }

    @Test func childListWithAParentsAsyncElementResolvesFromAsyncCode() async throws {
        let parent = Container()
        parent.contribute(to: [any Plugin].self) { _ in
            await Task.yield()
            return NamedPlugin("parent")
        }
        let child = Container(parent: parent)
        child.contribute(to: [any Plugin].self) { _ in NamedPlugin("child") }

        #expect(try await child.async.require([any Plugin].self).map(\.id) == ["parent", "child"])
    }

    @Test func asyncVerifyReportsAMissingDependencyOfAnAsyncElement() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { r in RemotePlugin(config: try await r.require(Config.self)) }

        let report = await container.async.verificationReport()

        let missing = report.problems(ofKind: .missingRegistration)
        #expect(missing.count == 1)
        #expect(missing.first?.path.last == "Config")
    }

    @Test func synchronousVerifyLeavesAnAsyncElementUnchecked() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in
            await Task.yield()
            return NamedPlugin("async")
        }

        let report = container.verificationReport()
        #expect(report.problems.isEmpty)
        #expect(!report.unchecked.isEmpty)
    }

    @Test func asyncVerifyPassesAListWithAnAsyncElementAndASynchronousConsumerOfItsSyncSibling() async throws {
        let container = Container()
        container.register(Config.self) { _ in Config() }
        container.contribute(to: [any Plugin].self) { r in RemotePlugin(config: try await r.require(Config.self)) }
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("sync") }
        container.register(Host.self) { r in Host(plugins: try await r.require([any Plugin].self)) }

        try await container.async.verify()
    }

    @Test func asyncVerifyDoesNotFlagASynchronousConsumerOfAnAllSynchronousList() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("sync") }
        container.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }

        try await container.async.verify()
        #expect(try container.require(Host.self).plugins.map(\.id) == ["sync"])
    }
}
