import Dispatch
import Foundation
import Testing
import Weft

/// Collections and decorators at their edges: many threads, captive elements, `removeAll()`,
/// scopes, the container's description.
@Suite struct CollectionDecoratorEdgeTests {
    protocol Plugin: AnyObject { var id: String { get } }

    final class NamedPlugin: Plugin {
        let id: String
        init(_ id: String) { self.id = id }
    }

    final class Wrapped: Plugin {
        let inner: any Plugin
        init(_ inner: any Plugin) { self.inner = inner }
        var id: String { "wrapped " + inner.id }
    }

    final class Host {
        let plugins: [any Plugin]
        init(plugins: [any Plugin]) { self.plugins = plugins }
    }

    @Test func singletonElementIsMadeOnceWhenManyThreadsResolveTheCollection() {
        let container = Container()
        let made = Counter()
        container.contribute(to: [any Plugin].self) { _ in
            made.increment()
            return NamedPlugin("shared")
        }
        .inObjectScope(.container)
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("fresh") }.inObjectScope(.transient)
        let seen = Collected<ObjectIdentifier>()

        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            if let plugins = container.resolve([any Plugin].self), plugins.count == 2 {
                seen.append(ObjectIdentifier(plugins[0]))
            }
        }

        #expect(seen.values.count == 64)
        #expect(Set(seen.values).count == 1)
        #expect(made.value == 1)
    }

    @Test func singletonHoldingACollectionWithAScopedElementIsCaptive() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("per request") }.inObjectScope(.scoped)
        container.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }
            .inObjectScope(.container)

        let report = container.verificationReport()
        #expect(report.problems.map(\.id) == ["captive-dependency"])
    }

    @Test func removeAllKeepsDecoratorsForWhatIsRegisteredNext() throws {
        let container = Container()
        container.decorate((any Plugin).self) { _, inner in Wrapped(inner) }
        container.register((any Plugin).self) { _ in NamedPlugin("before") }
        container.removeAll()
        container.register((any Plugin).self) { _ in NamedPlugin("after") }

        #expect(try container.require((any Plugin).self).id == "wrapped after")
    }

    @Test func decoratedServiceResolvedFromAScopeIsDecorated() throws {
        let container = Container()
        container.register((any Plugin).self) { _ in NamedPlugin("scoped") }.inObjectScope(.scoped)
        container.decorate((any Plugin).self) { _, inner in Wrapped(inner) }
        let scope = container.makeScope()

        let plugin = try scope.require((any Plugin).self)
        #expect(plugin.id == "wrapped scoped")
        #expect(plugin === (try scope.require((any Plugin).self)))
    }

    @Test func descriptionListsEachElementWithItsPlace() {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }
        container.contribute(to: [String: any Plugin].self, key: "b") { _ in NamedPlugin("b") }

        #expect(container.description.contains("element #1 of Array<Plugin>"))
        #expect(container.description.contains("element [\"b\"] of Dictionary<String, Plugin>"))
    }

    @Test func hasAnyRegistrationSeesAContributedCollection() {
        let container = Container()
        #expect(!container.hasAnyRegistration(of: [any Plugin].self))
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }
        #expect(container.hasAnyRegistration(of: [any Plugin].self))
    }

    /// A guard such as `if !hasAnyRegistration(of: Log.self) { register(Log.self) ... }` must not be fooled by a
    /// `[Log]` collection: its elements are registrations no `resolve` of `Log` finds.
    @Test func hasAnyRegistrationDoesNotCountElementsAsRegistrationsOfTheirType() {
        let parent = Container()
        parent.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }
        parent.contribute(to: [String: any Plugin].self, key: "b", name: "admin") { _ in NamedPlugin("b") }
        let child = Container(parent: parent)
        child.contribute(to: [any Plugin].self) { _ in NamedPlugin("c") }

        for container in [parent, child] {
            #expect(container.resolve((any Plugin).self) == nil)
            #expect(!container.hasAnyRegistration(of: (any Plugin).self))
            #expect(!container.hasAnyRegistration(of: (any Plugin).self, name: "admin"))
            #expect(container.hasAnyRegistration(of: [String: any Plugin].self, name: "admin"))
        }
        parent.register((any Plugin).self) { _ in NamedPlugin("d") }
        #expect(child.hasAnyRegistration(of: (any Plugin).self))
    }

    @Test func strictVerifyLooksThroughACollectionToItsElements() throws {
        let kept = Container()
        kept.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }.inObjectScope(.container)
        kept.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }.inObjectScope(.container)
        #expect(kept.verificationReport(strict: true).isValid)

        let short = Container()
        short.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }.inObjectScope(.container)
        short.contribute(to: [any Plugin].self) { _ in NamedPlugin("b") }.inObjectScope(.graph)
        short.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }.inObjectScope(.container)
        let problem = try #require(short.verificationReport(strict: true).problems.only)
        #expect(problem.kind == .captiveDependency)
        #expect(problem.message.hasPrefix("Host (.container) keeps one Array<Plugin>#2 (.graph)"))
        #expect(short.verificationReport().isValid)
    }
}
