import Foundation
import Testing
import Weft

/// Collections and decorators with hierarchies, with each other, with `verify()` and with graph export.
@Suite struct CollectionDecoratorInterplayTests {
    protocol Plugin: AnyObject { var id: String { get } }

    final class NamedPlugin: Plugin {
        let id: String
        init(_ id: String) { self.id = id }
    }

    final class TracingPlugin: Plugin {
        let inner: any Plugin
        init(_ inner: any Plugin) { self.inner = inner }
        var id: String { "traced " + inner.id }
    }

    final class Audit: Plugin {
        let id = "audit"
    }

    final class Log {}
    final class Clock {}

    // MARK: Hierarchies

    @Test func childCollectionHasItsParentsElementsFirst() throws {
        let parent = Container()
        parent.contribute(to: [any Plugin].self) { _ in NamedPlugin("parent 1") }
        let child = Container(parent: parent)
        child.contribute(to: [any Plugin].self) { _ in NamedPlugin("child 1") }
        // Contributed to the parent after the child's: still before it.
        parent.contribute(to: [any Plugin].self) { _ in NamedPlugin("parent 2") }

        #expect(try child.require([any Plugin].self).map(\.id) == ["parent 1", "parent 2", "child 1"])
        #expect(try parent.require([any Plugin].self).map(\.id) == ["parent 1", "parent 2"])
    }

    @Test func childWithoutContributionsResolvesItsParentsCollection() throws {
        let parent = Container()
        parent.contribute(to: [any Plugin].self) { _ in NamedPlugin("parent") }.inObjectScope(.container)
        let child = Container(parent: parent)

        let fromChild = try child.require([any Plugin].self)
        #expect(fromChild.map(\.id) == ["parent"])
        #expect(fromChild[0] === (try parent.require([any Plugin].self)[0]))
    }

    @Test func childMapElementHidesItsParentsUnderTheSameKey() throws {
        let parent = Container()
        let madeByParent = Counter()
        parent.contribute(to: [String: any Plugin].self, key: "a") { _ in
            madeByParent.increment()
            return NamedPlugin("parent a")
        }
        parent.contribute(to: [String: any Plugin].self, key: "b") { _ in NamedPlugin("parent b") }
        let child = Container(parent: parent)
        child.contribute(to: [String: any Plugin].self, key: "a") { _ in NamedPlugin("child a") }

        #expect(try child.require([String: any Plugin].self).mapValues(\.id) == ["a": "child a", "b": "parent b"])
        #expect(madeByParent.value == 0)
        #expect(try parent.require([String: any Plugin].self).mapValues(\.id) == ["a": "parent a", "b": "parent b"])
    }

    @Test func childElementWithAParentsIdTakesItsPlaceInTheChildOnly() throws {
        let parent = Container()
        let madeByParent = Counter()
        parent.contribute(to: [any Plugin].self, id: "audit") { _ in
            madeByParent.increment()
            return NamedPlugin("audit")
        }
        parent.contribute(to: [any Plugin].self) { _ in NamedPlugin("metrics") }
        let child = Container(parent: parent)
        child.contribute(to: [any Plugin].self, id: "audit") { _ in NamedPlugin("fake audit") }

        #expect(try child.require([any Plugin].self).map(\.id) == ["fake audit", "metrics"])
        #expect(madeByParent.value == 0)
        #expect(try parent.require([any Plugin].self).map(\.id) == ["audit", "metrics"])
    }

    @Test func scopedElementIsOnePerScope() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("scoped") }.inObjectScope(.scoped)
        let first = container.makeScope()
        let second = container.makeScope()

        let inFirst = try first.require([any Plugin].self)[0]
        #expect(inFirst === (try first.require([any Plugin].self)[0]))
        #expect(inFirst !== (try second.require([any Plugin].self)[0]))
    }

    // MARK: Decorators and collections

    @Test func decoratedSingletonInsideACollectionIsTheKeptDecoratedInstance() throws {
        let container = Container()
        let decorated = Counter()
        container.register(Audit.self) { _ in Audit() }.inObjectScope(.container)
        container.register((any Plugin).self) { r in try r.require(Audit.self) }.inObjectScope(.container)
        container.decorate((any Plugin).self) { _, inner in
            decorated.increment()
            return TracingPlugin(inner)
        }
        container.contribute(to: [any Plugin].self) { r in try r.require((any Plugin).self) }
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("plain") }

        let first = try container.require([any Plugin].self)
        let second = try container.require([any Plugin].self)
        #expect(first.map(\.id) == ["traced audit", "plain"])
        #expect(first[0] === second[0])
        #expect(first[0] === (try container.require((any Plugin).self)))
        #expect(decorated.value == 1)
    }

    @Test func decoratingTheCollectionWrapsTheWholeList() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }
        container.decorate([any Plugin].self) { _, plugins in plugins.map(TracingPlugin.init) }
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("b") }

        #expect(try container.require([any Plugin].self).map(\.id) == ["traced a", "traced b"])
        let node = try #require(container.dependencyGraph().node(for: [any Plugin].self))
        #expect(node.isCollection)
        #expect(node.decoratorCount == 1)
    }

    // MARK: verify() and the graph

    @Test func verifyReportsAMissingDependencyOfACollectionElement() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("fine") }
        container.contribute(to: [any Plugin].self) { r in
            _ = try r.require(Log.self)
            return NamedPlugin("needs a log")
        }

        let report = container.verificationReport()
        let problem = try #require(report.problems(ofKind: .missingRegistration).first)
        #expect(report.problems(ofKind: .missingRegistration).count == 1)
        #expect(problem.message == "Array<Plugin>#2 needs Log, which is not registered.")
        #expect(problem.pathDescription == "Array<Plugin> -> Array<Plugin>#2 -> Log")
    }

    @Test func verifyReportsAMissingDependencyOfADecorator() throws {
        let container = Container()
        container.register((any Plugin).self) { _ in Audit() }
        container.decorate((any Plugin).self) { r, inner in
            _ = try r.require(Clock.self)
            return TracingPlugin(inner)
        }

        let problem = try #require(container.verificationReport().problems(ofKind: .missingRegistration).first)
        #expect(problem.message == "Plugin needs Clock, which is not registered.")
        #expect(problem.pathDescription == "Plugin -> Clock")
    }

    @Test func verifyReportsAMissingDependencyOfADecoratorOfAnAutoregisteredService() throws {
        let container = Container()
        container.autoregister(Audit.self, initializer: Audit.init)
        container.decorate(Audit.self) { r, inner in
            _ = try r.require(Clock.self)
            return inner
        }

        let problem = try #require(container.verificationReport().problems(ofKind: .missingRegistration).first)
        #expect(problem.message == "Audit needs Clock, which is not registered.")
    }

    @Test func aDecoratorsDependencyOfAnAutoregisteredServiceIsOneOfItsEdgesForCaptiveChecksAndTheGraph() throws {
        let container = Container()
        container.register(Clock.self) { _ in Clock() }.inObjectScope(.scoped)
        container.autoregister(Audit.self, initializer: Audit.init).inObjectScope(.container)
        container.decorate(Audit.self) { r, inner in
            _ = try r.require(Clock.self)
            return inner
        }

        let report = container.verificationReport()
        let problem = try #require(report.problems(ofKind: .captiveDependency).first)
        #expect(problem.pathDescription == "Audit -> Clock")
        let graph = container.dependencyGraph()
        #expect(graph.edges.count == 1)
        #expect(graph.edges.first.flatMap { graph.node(id: $0.from)?.label } == "Audit")
        #expect(graph.edges.first.flatMap { graph.node(id: $0.to)?.label } == "Clock")
    }

    @Test func verifyPassesForACompleteCollectionAndDecorator() throws {
        let container = Container()
        container.register(Log.self) { _ in Log() }.inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { r in
            _ = try r.require(Log.self)
            return NamedPlugin("a")
        }
        container.register((any Plugin).self) { _ in Audit() }
        container.decorate((any Plugin).self) { r, inner in
            _ = try r.require(Log.self)
            return TracingPlugin(inner)
        }

        try container.verify()
    }

    @Test func graphDrawsTheCollectionItsElementsAndTheDecoratorsDependencies() throws {
        let container = Container()
        container.register(Log.self) { _ in Log() }.inObjectScope(.container)
        container.register(Clock.self) { _ in Clock() }
        container.contribute(to: [any Plugin].self) { r in
            _ = try r.require(Log.self)
            return NamedPlugin("a")
        }.inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("b") }
        container.register((any Plugin).self) { _ in Audit() }
        container.decorate((any Plugin).self) { r, inner in
            _ = try r.require(Clock.self)
            return TracingPlugin(inner)
        }

        let graph = container.dependencyGraph()
        let list = try #require(graph.node(for: [any Plugin].self))
        #expect(list.isCollection)
        let elements = graph.dependencies(of: list.id).compactMap { graph.node(id: $0.to) }
        #expect(elements.map(\.label) == ["Array<Plugin>#1", "Array<Plugin>#2"])
        #expect(elements.map(\.collectionElement) == ["Array<Plugin>#1", "Array<Plugin>#2"])
        #expect(elements.map(\.scope) == ["container", "graph"])
        let log = try #require(graph.node(for: Log.self))
        #expect(graph.dependencies(of: elements[0].id).map(\.to) == [log.id])

        let plugin = try #require(graph.node(for: (any Plugin).self))
        #expect(plugin.decoratorCount == 1)
        let clock = try #require(graph.node(for: Clock.self))
        #expect(graph.dependencies(of: plugin.id).map(\.to) == [clock.id])

        #expect(graph.dot.contains("collection"))
        #expect(graph.dot.contains("element: Plugin"))
        #expect(graph.mermaid.contains("decorated"))
    }
}
