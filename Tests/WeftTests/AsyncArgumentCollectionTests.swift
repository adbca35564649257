import Foundation
import Testing
import Weft

/// Collections whose elements' factories are both `async` and take runtime arguments: they contribute to the
/// collection resolved with those arguments, beside the synchronous elements that take them, and follow the rules
/// of async elements and of elements with arguments.
@Suite struct AsyncArgumentCollectionTests {
    protocol Plugin: AnyObject, Sendable { var id: String { get } }

    struct Config: Sendable {
        let prefix: String
    }

    final class NamedPlugin: Plugin {
        let id: String
        init(_ id: String) { self.id = id }
    }

    final class Log: Sendable {}

    final class Host: Sendable {
        let plugins: [any Plugin]
        init(plugins: [any Plugin]) { self.plugins = plugins }
    }

    @Test func asyncElementWithArgumentsIsMadeInContributionOrderWithTheArguments() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix + "sync") }
        container.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config) in
            await Task.yield()
            return NamedPlugin(config.prefix + "async")
        }
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix + "last") }

        let plugins = try await container.async.require([any Plugin].self, arguments: Config(prefix: "x-"))
        #expect(plugins.map(\.id) == ["x-sync", "x-async", "x-last"])
    }

    @Test func asyncElementWithArgumentsResolvesItsDependenciesAsynchronously() async throws {
        let container = Container()
        container.register(Log.self) { _ in
            await Task.yield()
            return Log()
        }.inObjectScope(.container)
        let logs = Collected<Log>()
        container.contribute(to: [any Plugin].self) { (r: AsyncResolver, config: Config) in
            logs.append(try await r.require(Log.self))
            return NamedPlugin(config.prefix)
        }

        _ = try await container.async.require([any Plugin].self, arguments: Config(prefix: ""))
        #expect(logs.values.first === (try await container.async.require(Log.self)))
    }

    @Test func asyncElementsWithSeveralArgumentsReceiveThemAll() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config, count: Int) in
            await Task.yield()
            return NamedPlugin(config.prefix + String(count))
        }

        let plugins = try await container.async.require([any Plugin].self, arguments: Config(prefix: "n"), 3)
        #expect(plugins.map(\.id) == ["n3"])
    }

    @Test func childListHasItsParentsAsyncElementsWithArgumentsFirst() async throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config) in
            await Task.yield()
            return NamedPlugin(config.prefix + "child")
        }
        parent.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config) in
            await Task.yield()
            return NamedPlugin(config.prefix + "parent")
        }

        let plugins = try await child.async.require([any Plugin].self, arguments: Config(prefix: "-"))
        #expect(plugins.map(\.id) == ["-parent", "-child"])
        let parents = try await parent.async.require([any Plugin].self, arguments: Config(prefix: "-"))
        #expect(parents.map(\.id) == ["-parent"])
    }

    @Test func eachAsyncElementWithArgumentsKeepsItsOwnScope() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config) in
            await Task.yield()
            return NamedPlugin(config.prefix)
        }.inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config) in
            await Task.yield()
            return NamedPlugin(config.prefix)
        }.inObjectScope(.transient)

        let first = try await container.async.require([any Plugin].self, arguments: Config(prefix: "first"))
        let second = try await container.async.require([any Plugin].self, arguments: Config(prefix: "second"))
        #expect(first[0] === second[0])
        #expect(second[0].id == "first")
        #expect(first[1] !== second[1])
        #expect(second[1].id == "second")
    }

    @Test func laterAsyncElementWithTheSameIdReplacesTheEarlierInItsPlace() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self, id: "a") { (_, _: Config) in NamedPlugin("old") }
        container.contribute(to: [any Plugin].self) { (_, _: Config) in NamedPlugin("b") }
        container.contribute(to: [any Plugin].self, id: "a") { (_: AsyncResolver, _: Config) in
            await Task.yield()
            return NamedPlugin("new")
        }

        let plugins = try await container.async.require([any Plugin].self, arguments: Config(prefix: ""))
        #expect(plugins.map(\.id) == ["new", "b"])
    }

    @Test func synchronousResolveOfAListWithAnAsyncElementWithArgumentsFailsAsForAnyAsyncRegistration() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix) }
        container.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config) in
            await Task.yield()
            return NamedPlugin(config.prefix)
        }

        let error = try #require(throws: ResolutionError.self) {
            try container.require([any Plugin].self, argument: Config(prefix: ""))
        }
        #expect(error.reason == .requiresAsync)
        #expect(error.description.contains("Array<Plugin>#2"))
        #expect(container.resolve([any Plugin].self, argument: Config(prefix: "")) == nil)
    }

    @Test func asyncFactoryTakesAListWithAsyncElementsWithArguments() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config) in
            await Task.yield()
            return NamedPlugin(config.prefix)
        }
        container.register(Host.self) { r in
            Host(plugins: try await r.require([any Plugin].self, arguments: Config(prefix: "host")))
        }

        #expect(try await container.async.require(Host.self).plugins.map(\.id) == ["host"])
    }

    @Test func verifyTreatsAnAsyncElementWithArgumentsAsItTreatsOtherElementsWithArguments() async throws {
        let synchronous = Container()
        synchronous.contribute(to: [any Plugin].self) { (r, _: Config) in NamedPlugin("\(try r.require(Log.self))") }
        let asynchronous = Container()
        asynchronous.contribute(to: [any Plugin].self) { (r: AsyncResolver, _: Config) in
            NamedPlugin("\(try await r.require(Log.self))")
        }

        let expected = synchronous.verificationReport()
        let report = asynchronous.verificationReport()
        #expect(report.problems.isEmpty)
        #expect(report.problems.count == expected.problems.count)
        #expect(report.unchecked.count == expected.unchecked.count)
        let asyncReport = await asynchronous.async.verificationReport()
        #expect(asyncReport.problems.count == expected.problems.count)
        #expect(asyncReport.unchecked.count == expected.unchecked.count)
    }

    @Test func graphDrawsAnAsyncElementWithArgumentsAsItDrawsOtherElementsWithArguments() throws {
        let synchronous = Container()
        synchronous.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix) }
        let asynchronous = Container()
        asynchronous.contribute(to: [any Plugin].self) { (_: AsyncResolver, config: Config) in
            NamedPlugin(config.prefix)
        }

        let expected = synchronous.dependencyGraph()
        let graph = asynchronous.dependencyGraph()
        #expect(graph.nodes.map(\.label) == expected.nodes.map(\.label))
        #expect(graph.nodes.map(\.collectionElement) == expected.nodes.map(\.collectionElement))
        #expect(graph.nodes.map(\.isCollection) == expected.nodes.map(\.isCollection))
        #expect(graph.nodes.contains { $0.collectionElement == "Array<Plugin>#1" })
    }

    @Test func mapWithAsyncElementsWithArgumentsResolvesFromAsyncCode() async throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "sync") { (_, config: Config) in
            NamedPlugin(config.prefix + "s")
        }
        container.contribute(to: [String: any Plugin].self, key: "async") { (_: AsyncResolver, config: Config) in
            await Task.yield()
            return NamedPlugin(config.prefix + "a")
        }

        let map = try await container.async.require([String: any Plugin].self, arguments: Config(prefix: "-"))
        #expect(map.mapValues(\.id) == ["sync": "-s", "async": "-a"])
        let error = try #require(throws: ResolutionError.self) {
            try container.require([String: any Plugin].self, argument: Config(prefix: ""))
        }
        #expect(error.reason == .requiresAsync)
    }

    @Test func childMapAsyncElementWithArgumentsHidesItsParentsUnderTheSameKey() async throws {
        let parent = Container()
        parent.contribute(to: [String: any Plugin].self, key: "shared") { (_, _: Config) in NamedPlugin("parent") }
        parent.contribute(to: [String: any Plugin].self, key: "own") { (_: AsyncResolver, _: Config) in
            NamedPlugin("parent-own")
        }
        let child = Container(parent: parent)
        child.contribute(to: [String: any Plugin].self, key: "shared") { (_: AsyncResolver, _: Config) in
            await Task.yield()
            return NamedPlugin("child")
        }

        let plugins = try await child.async.require([String: any Plugin].self, arguments: Config(prefix: ""))
        #expect(plugins.mapValues(\.id) == ["shared": "child", "own": "parent-own"])
    }
}
