import Testing
import Weft

/// Lists whose elements' factories take runtime arguments: resolved with the arguments, which each element
/// receives; a separate list from the elements without arguments.
@Suite struct ArgumentCollectionTests {
    protocol Plugin: AnyObject { var id: String { get } }

    struct Config: Sendable {
        let prefix: String
    }

    final class NamedPlugin: Plugin {
        let id: String
        init(_ id: String) { self.id = id }
    }

    @Test func listResolvedWithAnArgumentPassesItToEveryElementInOrder() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix + "a") }
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix + "b") }

        let plugins = try container.require([any Plugin].self, argument: Config(prefix: "x-"))
        #expect(plugins.map(\.id) == ["x-a", "x-b"])
    }

    @Test func listWithArgumentsIsSeparateFromTheListWithout() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("plain") }
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix) }

        #expect(try container.require([any Plugin].self).map(\.id) == ["plain"])
        #expect(try container.require([any Plugin].self, argument: Config(prefix: "arg")).map(\.id) == ["arg"])
    }

    @Test func elementsWithSeveralArgumentsReceiveThemAll() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_, config: Config, count: Int) in
            NamedPlugin(config.prefix + String(count))
        }

        #expect(try container.require([any Plugin].self, arguments: Config(prefix: "n"), 3).map(\.id) == ["n3"])
    }

    @Test func childListWithArgumentsHasItsParentsElementsFirst() throws {
        let parent = Container()
        parent.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix + "parent") }
        let child = Container(parent: parent)
        child.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix + "child") }

        let plugins = try child.require([any Plugin].self, argument: Config(prefix: "-"))
        #expect(plugins.map(\.id) == ["-parent", "-child"])
    }

    @Test func laterElementWithTheSameIdReplacesTheEarlierInItsPlace() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self, id: "a") { (_, config: Config) in NamedPlugin("old") }
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin("b") }
        container.contribute(to: [any Plugin].self, id: "a") { (_, config: Config) in NamedPlugin("new") }

        #expect(try container.require([any Plugin].self, argument: Config(prefix: "")).map(\.id) == ["new", "b"])
    }

    @Test func namedListsWithArgumentsAreSeparate() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self, name: "admin") { (_, config: Config) in NamedPlugin("admin") }
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin("user") }

        let config = Config(prefix: "")
        #expect(try container.require([any Plugin].self, name: "admin", argument: config).map(\.id) == ["admin"])
        #expect(try container.require([any Plugin].self, argument: config).map(\.id) == ["user"])
    }

    @Test func singletonElementWithArgumentsIsMadeOnceWithTheFirstArguments() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix) }
            .inObjectScope(.container)

        let first = try container.require([any Plugin].self, argument: Config(prefix: "first"))
        let second = try container.require([any Plugin].self, argument: Config(prefix: "second"))
        #expect(first[0] === second[0])
        #expect(second.map(\.id) == ["first"])
    }

    @Test func listWithArgumentsResolvesFromAsyncCode() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix) }

        let plugins = try await container.async.require([any Plugin].self, arguments: Config(prefix: "async"))
        #expect(plugins.map(\.id) == ["async"])
    }

    @Test func verifyPassesAContainerWithAListWithArguments() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { (_, config: Config) in NamedPlugin(config.prefix) }

        try container.verify()
    }

    @Test func mapResolvedWithAnArgumentPassesItToEveryElement() throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "a") { (_, config: Config) in
            NamedPlugin(config.prefix + "a")
        }
        container.contribute(to: [String: any Plugin].self, key: "b") { (_, config: Config) in
            NamedPlugin(config.prefix + "b")
        }

        let plugins = try container.require([String: any Plugin].self, argument: Config(prefix: "x-"))
        #expect(plugins.mapValues(\.id) == ["a": "x-a", "b": "x-b"])
    }

    @Test func mapWithArgumentsIsSeparateFromTheMapWithout() throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "plain") { _ in NamedPlugin("plain") }
        container.contribute(to: [String: any Plugin].self, key: "arg") { (_, config: Config) in
            NamedPlugin(config.prefix)
        }

        #expect(try container.require([String: any Plugin].self).mapValues(\.id) == ["plain": "plain"])
        let withArgument = try container.require([String: any Plugin].self, argument: Config(prefix: "p"))
        #expect(withArgument.mapValues(\.id) == ["arg": "p"])
    }

    @Test func mapElementWithSeveralArgumentsReceivesThemAll() throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "n") { (_, config: Config, count: Int) in
            NamedPlugin(config.prefix + String(count))
        }

        let plugins = try container.require([String: any Plugin].self, arguments: Config(prefix: "n"), 3)
        #expect(plugins.mapValues(\.id) == ["n": "n3"])
    }

    @Test func laterMapElementUnderTheSameKeyReplacesTheEarlier() throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "a") { (_, _: Config) in NamedPlugin("old") }
        container.contribute(to: [String: any Plugin].self, key: "a") { (_, _: Config) in NamedPlugin("new") }

        let plugins = try container.require([String: any Plugin].self, argument: Config(prefix: ""))
        #expect(plugins.mapValues(\.id) == ["a": "new"])
    }

    @Test func childMapElementWithArgumentsHidesItsParentsUnderTheSameKey() throws {
        let parent = Container()
        parent.contribute(to: [String: any Plugin].self, key: "shared") { (_, _: Config) in NamedPlugin("parent") }
        parent.contribute(to: [String: any Plugin].self, key: "own") { (_, _: Config) in NamedPlugin("parent-own") }
        let child = Container(parent: parent)
        child.contribute(to: [String: any Plugin].self, key: "shared") { (_, _: Config) in NamedPlugin("child") }

        let plugins = try child.require([String: any Plugin].self, argument: Config(prefix: ""))
        #expect(plugins.mapValues(\.id) == ["shared": "child", "own": "parent-own"])
        let parents = try parent.require([String: any Plugin].self, argument: Config(prefix: ""))
        #expect(parents.mapValues(\.id) == ["shared": "parent", "own": "parent-own"])
    }

    @Test func namedMapsWithArgumentsAreSeparate() throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "a", name: "admin") { (_, _: Config) in
            NamedPlugin("admin")
        }
        container.contribute(to: [String: any Plugin].self, key: "a") { (_, _: Config) in NamedPlugin("user") }

        let config = Config(prefix: "")
        let admin = try container.require([String: any Plugin].self, name: "admin", argument: config)
        #expect(admin.mapValues(\.id) == ["a": "admin"])
        #expect(try container.require([String: any Plugin].self, argument: config).mapValues(\.id) == ["a": "user"])
    }

    @Test func singletonMapElementWithArgumentsIsMadeOnceWithTheFirstArguments() throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "a") { (_, config: Config) in
            NamedPlugin(config.prefix)
        }
        .inObjectScope(.container)

        let first = try container.require([String: any Plugin].self, argument: Config(prefix: "first"))
        let second = try container.require([String: any Plugin].self, argument: Config(prefix: "second"))
        #expect(first["a"] === second["a"])
        #expect(second["a"]?.id == "first")
    }

    @Test func mapWithArgumentsResolvesFromAsyncCode() async throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "a") { (_, config: Config) in
            NamedPlugin(config.prefix)
        }

        let plugins = try await container.async.require([String: any Plugin].self, arguments: Config(prefix: "async"))
        #expect(plugins.mapValues(\.id) == ["a": "async"])
    }
}
