import Foundation
import Testing
import Weft

/// A shared instance made with a collection is made again once the collection gains an element, as it is once an
/// element is replaced: a singleton never keeps a list or map the container no longer gives.
@Suite struct CollectionGrowthInvalidationTests {
    protocol Plugin: AnyObject { var id: String { get } }

    final class NamedPlugin: Plugin {
        let id: String
        init(_ id: String) { self.id = id }
    }

    final class Host {
        let plugins: [any Plugin]
        init(plugins: [any Plugin]) { self.plugins = plugins }
    }

    final class Router {
        let handlers: [String: any Plugin]
        init(handlers: [String: any Plugin]) { self.handlers = handlers }
    }

    @Test func aSingletonMadeWithAListIsMadeAgainOnceTheListGainsAnElement() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }
        container.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }
            .inObjectScope(.container)
        let before = try container.require(Host.self)

        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("b") }
        let after = try container.require(Host.self)

        #expect(before.plugins.map(\.id) == ["a"])
        #expect(after.plugins.map(\.id) == ["a", "b"])
        #expect(try container.require(Host.self) === after)
    }

    @Test func aSingletonMadeWithAMapIsMadeAgainOnceTheMapGainsAKey() throws {
        let container = Container()
        container.contribute(to: [String: any Plugin].self, key: "users") { _ in NamedPlugin("users") }
        container.register(Router.self) { r in Router(handlers: try r.require([String: any Plugin].self)) }
            .inObjectScope(.container)
        let before = try container.require(Router.self)

        container.contribute(to: [String: any Plugin].self, key: "orders") { _ in NamedPlugin("orders") }
        let after = try container.require(Router.self)

        #expect(before.handlers.keys.sorted() == ["users"])
        #expect(after.handlers.keys.sorted() == ["orders", "users"])
    }

    @Test func aSingletonInAChildMadeWithItsParentsListIsMadeAgainOnceTheParentAddsToIt() throws {
        let parent = Container()
        parent.contribute(to: [any Plugin].self) { _ in NamedPlugin("a") }
        let child = Container(parent: parent)
        child.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }
            .inObjectScope(.container)
        let before = try child.require(Host.self)

        parent.contribute(to: [any Plugin].self) { _ in NamedPlugin("b") }

        #expect(before.plugins.map(\.id) == ["a"])
        #expect(try child.require(Host.self).plugins.map(\.id) == ["a", "b"])
    }

    @Test func aSingletonMadeWithADeclaredEmptyListIsMadeAgainOnceSomethingIsContributed() throws {
        let container = Container()
        container.declareCollection([any Plugin].self)
        container.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }
            .inObjectScope(.container)
        #expect(try container.require(Host.self).plugins.isEmpty)

        container.contribute(to: [any Plugin].self) { _ in NamedPlugin("late") }

        #expect(try container.require(Host.self).plugins.map(\.id) == ["late"])
    }

    @Test(hangLimit)
    func aSingletonResolvedWhileOtherThreadsContributeEndsWithEveryElement() {
        let container = Container()
        container.declareCollection([any Plugin].self)
        container.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }
            .inObjectScope(.container)
        let count = 200
        let done = Collected<Bool>()
        let contributors = (0..<2).map { half in
            runOnThread {
                for index in stride(from: half, to: count, by: 2) {
                    container.contribute(to: [any Plugin].self) { _ in NamedPlugin("\(index)") }
                }
                done.append(true)
            }
        }
        let resolvers = (0..<2).map { _ in
            runOnThread {
                while done.values.count < 2 { _ = container.resolve(Host.self) }
            }
        }
        for thread in contributors + resolvers { #expect(thread.wait(seconds: 60)) }

        // A singleton made while an element was being added was discarded or not kept: none misses one.
        #expect(container.resolve(Host.self)?.plugins.count == count)
    }
}
