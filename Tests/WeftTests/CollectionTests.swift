import Testing
import Weft

/// `contribute(to:)` and `declareCollection`: lists and maps made of several registrations, resolved as one
/// service, each element in its own scope.
@Suite struct CollectionTests {
    protocol Plugin: AnyObject { var id: String { get } }

    final class NamedPlugin: Plugin {
        let id: String
        init(_ id: String) { self.id = id }
    }

    final class Log {}

    final class AuditPlugin: Plugin {
        let id = "audit"
        let log: Log
        init(log: Log) { self.log = log }
    }

    final class Host {
        let plugins: [any Plugin]
        init(plugins: [any Plugin]) { self.plugins = plugins }
    }

    protocol Handler { var path: String { get } }

    struct PathHandler: Handler {
        let path: String
    }

    @Test func listResolvesEveryContributionInRegistrationOrder() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("b") }
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("c") }

        #expect(try container.require([any Plugin].self).map(\.id) == ["a", "b", "c"])
        #expect(container.resolve([any Plugin].self)?.map(\.id) == ["a", "b", "c"])
    }

    @Test func eachElementKeepsItsOwnScope() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("kept") }.inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("fresh") }.inObjectScope(.transient)

        let first = try container.require([any Plugin].self)
        let second = try container.require([any Plugin].self)
        #expect(first[0] === second[0])
        #expect(first[1] !== second[1])
    }

    @Test func factoryTakesTheCollectionAsADependency() throws {
        let container = Container()
        container.register(Log.self) { _ in Log() }.inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { r in AuditPlugin(log: try r.require(Log.self)) }
        container.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }

        let host = try container.require(Host.self)
        #expect(host.plugins.map(\.id) == ["audit"])
        #expect((host.plugins[0] as? AuditPlugin)?.log === (try container.require(Log.self)))
    }

    @Test func asyncRequireResolvesTheCollection() async throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("b") }

        #expect(try await container.async.require([any Plugin].self).map(\.id) == ["a", "b"])
    }

    @Test func declaredCollectionWithoutContributionsIsEmptyNotMissing() throws {
        let container = Container()
        container.declareCollection([any Plugin].self)
        container.declareCollection([String: any Handler].self)

        #expect(try container.require([any Plugin].self).isEmpty)
        #expect(try container.require([String: any Handler].self).isEmpty)
        #expect(container.resolve([any Plugin].self) != nil)
    }

    @Test func undeclaredCollectionIsMissing() {
        let container = Container()
        #expect(throws: ResolutionError.self) { try container.require([any Plugin].self) }
    }

    @Test func namedCollectionsAreSeparate() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("user") }
        container.contribute(to: [any Plugin].self, name: "admin") { _ in NamedPlugin("admin") }

        #expect(try container.require([any Plugin].self).map(\.id) == ["user"])
        #expect(try container.require([any Plugin].self, name: "admin").map(\.id) == ["admin"])
    }

    @Test func mapResolvesEveryContributionByKey() throws {
        let container = Container()
        container.contribute(to: [String: any Handler].self, key: "users") { _ in PathHandler(path: "/users") }
        container.contribute(to: [String: any Handler].self, key: "orders") { _ in PathHandler(path: "/orders") }

        let handlers = try container.require([String: any Handler].self)
        #expect(handlers.mapValues(\.path) == ["users": "/users", "orders": "/orders"])
    }

    @Test func laterContributionUnderTheSameMapKeyReplacesTheEarlier() throws {
        let container = Container()
        let made = Counter()
        container.contribute(to: [String: any Handler].self, key: "users") { _ in
            made.increment()
            return PathHandler(path: "/old")
        }
        container.contribute(to: [String: any Handler].self, key: "users") { _ in PathHandler(path: "/new") }

        #expect(try container.require([String: any Handler].self).mapValues(\.path) == ["users": "/new"])
        #expect(made.value == 0)
    }

    @Test func laterContributionWithTheSameIdReplacesTheElementInItsPlace() throws {
        let container = Container()
        let made = Counter()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("first") }
        container.contribute(to: [any Plugin].self, id: "audit") { _ in
            made.increment()
            return NamedPlugin("audit")
        }
        .inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("last") }
        _ = try container.require([any Plugin].self)
        container.contribute(to: [any Plugin].self, id: "audit") { _ in NamedPlugin("fake audit") }

        #expect(try container.require([any Plugin].self).map(\.id) == ["first", "fake audit", "last"])
        #expect(made.value == 1)
    }

    @Test func collectionIsMadeAnewButGraphElementsAreSharedInAGraph() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("graph") }
        container.register(Host.self) { r in
            let first = try r.require([any Plugin].self)
            let second = try r.require([any Plugin].self)
            return Host(plugins: first + second)
        }

        let host = try container.require(Host.self)
        #expect(host.plugins[0] === host.plugins[1])
        #expect(try container.require(Host.self).plugins[0] !== host.plugins[0])
    }

    @Test func failingElementFailsTheCollectionWithItsPath() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("fine") }
        container.contribute(to: [any Plugin].self) { r in AuditPlugin(log: try r.require(Log.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require([any Plugin].self) }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Array<Plugin>", "Array<Plugin>#2", "Log"])
    }

    @Test func removeAllRemovesTheCollectionAndItsElements() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("gone") }
        container.removeAll()
        #expect(container.resolve([any Plugin].self) == nil)

        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("new") }
        #expect(try container.require([any Plugin].self).map(\.id) == ["new"])
    }

    @Test func registeringTheCollectionTypeReplacesTheCollection() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("contributed") }
        container.register([any Plugin].self) { _ in [NamedPlugin("registered")] }

        #expect(try container.require([any Plugin].self).map(\.id) == ["registered"])
    }
}
