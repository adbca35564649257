import Testing
import Weft

/// `AssemblyOverride` and `Assembler(_:overriddenBy:)`: an override assembly replaces only the registrations it
/// names, before anything is built, so what depends on them is built with the override.
@Suite struct AssemblyOverrideTests {
    protocol Network: AnyObject { var name: String { get } }
    final class RealNetwork: Network { let name = "real" }
    final class FakeNetwork: Network { let name = "fake" }

    final class Feed {
        let network: any Network
        init(network: any Network) { self.network = network }
    }

    final class Store {}

    /// Records what `loaded(resolver:)` saw, in order.
    final class Journal: @unchecked Sendable {
        var entries: [String] = []
    }

    struct NetworkAssembly: Assembly {
        var journal = Journal()
        func assemble(container: Container) {
            container.register((any Network).self) { _ in RealNetwork() }.inObjectScope(.container)
            container.register((any Network).self, name: "backup") { _ in RealNetwork() }
        }
        func loaded(resolver: any Resolver) {
            journal.entries.append("network: \(resolver.resolve((any Network).self)?.name ?? "none")")
        }
    }

    struct FeedAssembly: Assembly {
        var journal = Journal()
        func assemble(container: Container) {
            container.register(Feed.self) { r in Feed(network: try r.require()) }.inObjectScope(.container)
            container.register(Store.self) { _ in Store() }.inObjectScope(.container)
        }
        func loaded(resolver: any Resolver) {
            // An eager singleton, as apps make them: built once every assembly is registered.
            journal.entries.append("feed: \(resolver.resolve(Feed.self)?.network.name ?? "none")")
        }
    }

    struct FakeNetworkAssembly: Assembly {
        var journal = Journal()
        func assemble(container: Container) {
            container.register((any Network).self) { _ in FakeNetwork() }.inObjectScope(.container)
        }
        func loaded(resolver _: any Resolver) {
            journal.entries.append("fake loaded")
        }
    }

    @Test func overrideReplacesOnlyTheRegistrationsItNames() throws {
        let assembler = Assembler([NetworkAssembly(), FeedAssembly()], overriddenBy: [FakeNetworkAssembly()])
        let resolver = assembler.resolver

        #expect(try resolver.require((any Network).self).name == "fake")
        #expect(try resolver.require((any Network).self, name: "backup").name == "real")
        #expect(resolver.resolve(Store.self) != nil)
    }

    @Test func servicesResolvedEagerlyInLoadedAreBuiltWithTheOverride() throws {
        let journal = Journal()
        let assembler = Assembler(
            [NetworkAssembly(journal: journal), FeedAssembly(journal: journal)],
            overriddenBy: [FakeNetworkAssembly(journal: journal)])

        #expect(journal.entries == ["network: fake", "feed: fake", "fake loaded"])
        #expect(try assembler.resolver.require(Feed.self).network.name == "fake")
    }

    @Test func withoutTheOverrideTheAssembliesOwnRegistrationsAreUsed() throws {
        let journal = Journal()
        let assembler = Assembler([NetworkAssembly(journal: journal), FeedAssembly(journal: journal)])
        #expect(journal.entries == ["network: real", "feed: real"])
        #expect(try assembler.resolver.require(Feed.self).network.name == "real")
    }

    @Test func overridesNestAndTheOuterOneWins() throws {
        struct SecondFake: Assembly {
            func assemble(container: Container) {
                container.register((any Network).self, name: "backup") { _ in FakeNetwork() }
                container.register((any Network).self) { _ in RealNetwork() }
            }
        }
        let inner = AssemblyOverride([NetworkAssembly(), FeedAssembly()], with: [FakeNetworkAssembly()])
        let assembler = Assembler([AssemblyOverride([inner], with: [SecondFake()])])

        #expect(try assembler.resolver.require((any Network).self, name: "backup").name == "fake")
        #expect(try assembler.resolver.require(Feed.self).network.name == "real")
    }

    @Test func anOverrideOfSomethingTheAssembliesLackAddsIt() throws {
        struct Extra: Assembly {
            func assemble(container: Container) {
                container.register(Store.self, name: "extra") { _ in Store() }
            }
        }
        let assembler = Assembler([NetworkAssembly()], overriddenBy: [Extra()])
        #expect(assembler.resolver.resolve(Store.self, name: "extra") != nil)
    }

    @Test func overrideIntoAGivenContainerVerifiesClean() throws {
        let container = Container()
        _ = Assembler([NetworkAssembly(), FeedAssembly()], overriddenBy: [FakeNetworkAssembly()], container: container)
        try container.verify()
        #expect(try container.require(Feed.self).network.name == "fake")
    }

    protocol Plugin: AnyObject { var label: String { get } }
    final class NamedPlugin: Plugin {
        let label: String
        init(_ label: String) { self.label = label }
    }

    struct PluginAssembly: Assembly {
        func assemble(container: Container) {
            container.contribute(to: [any Plugin].self, id: "audit") { _ in NamedPlugin("audit") }
            container.contribute(to: [any Plugin].self, id: "metrics") { _ in NamedPlugin("metrics") }
            container.contribute(to: [String: any Plugin].self, key: "users") { _ in NamedPlugin("users") }
        }
    }

    struct QuietMetricsAssembly: Assembly {
        func assemble(container: Container) {
            container.contribute(to: [any Plugin].self, id: "metrics") { _ in NamedPlugin("quiet metrics") }
            container.contribute(to: [String: any Plugin].self, key: "users") { _ in NamedPlugin("fake users") }
        }
    }

    @Test func overrideReplacesACollectionElementInItsPlace() throws {
        let assembler = Assembler([PluginAssembly()], overriddenBy: [QuietMetricsAssembly()])
        let plugins = try assembler.resolver.require([any Plugin].self)
        #expect(plugins.map(\.label) == ["audit", "quiet metrics"])
        let map = try assembler.resolver.require([String: any Plugin].self)
        #expect(map.mapValues(\.label) == ["users": "fake users"])
    }

    struct LoggingNetworkAssembly: Assembly {
        final class Logged: Network {
            let inner: any Network
            init(_ inner: any Network) { self.inner = inner }
            var name: String { "logged \(inner.name)" }
        }
        func assemble(container: Container) {
            container.decorate((any Network).self) { _, inner in Logged(inner) }
        }
    }

    @Test func aDecoratorOfTheAssembliesAlsoWrapsTheOverride() throws {
        let assembler = Assembler(
            [NetworkAssembly(), LoggingNetworkAssembly()], overriddenBy: [FakeNetworkAssembly()])
        #expect(try assembler.resolver.require((any Network).self).name == "logged fake")
    }
}
