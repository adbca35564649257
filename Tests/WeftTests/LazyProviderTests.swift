import Dispatch
import Foundation
import Testing
import Weft

/// `Lazy<T>` (made on first use, once, in the graph it was resolved in) and `Provider<T>` (a new instance
/// each time), which need no registration of their own.
@Suite struct LazyProviderTests {
    protocol Animal: AnyObject {}

    final class Dog: Animal {
        let name: String
        init(name: String = "Hachi") {
            self.name = name
        }
    }

    final class Owner {
        let dog: Dog
        let lazyDog: Lazy<Dog>
        init(dog: Dog, lazyDog: Lazy<Dog>) {
            self.dog = dog
            self.lazyDog = lazyDog
        }
    }

    final class Engine {}

    /// Registers `Dog` in `scope`, counting factory calls, and `Owner` on top of it.
    private func container(scope: ObjectScope = .graph, calls: Counter = Counter()) -> Container {
        let container = Container()
        container.register(Dog.self) { _ in
            calls.increment()
            return Dog()
        }
        .inObjectScope(scope)
        container.register(Owner.self) { r in
            Owner(dog: r.resolve(Dog.self)!, lazyDog: r.resolve(Lazy<Dog>.self)!)
        }
        return container
    }

    // MARK: Lazy

    @Test func lazyMakesNothingUntilFirstAccess() throws {
        let calls = Counter()
        let container = container(calls: calls)

        let lazy = try #require(container.resolve(Lazy<Dog>.self))
        #expect(calls.value == 0)
        _ = lazy.instance
        #expect(calls.value == 1)
    }

    @Test func lazyMakesItsInstanceOnlyOnce() throws {
        let calls = Counter()
        let container = container(scope: .transient, calls: calls)

        let lazy = try #require(container.resolve(Lazy<Dog>.self))
        let first = lazy.instance
        let second = try lazy.get()
        #expect(first === second)
        #expect(calls.value == 1)
    }

    @Test func lazyResolvesInTheGraphItWasResolvedIn() throws {
        let container = container(scope: .graph)

        let owner = try #require(container.resolve(Owner.self))
        #expect(owner.lazyDog.instance === owner.dog)
    }

    /// A graph-scoped `Kennel` whose factory resolves a `Lazy` (which lets the graph escape) and that is itself
    /// resolved inside another factory: the `Lazy`, used after the resolve, finds that same kennel in the graph.
    final class Kennel {
        let lazyOwner: Lazy<KennelOwner>
        init(lazyOwner: Lazy<KennelOwner>) { self.lazyOwner = lazyOwner }
    }

    /// Holds its kennel weakly: the kennel's `Lazy` keeps its owner, and the test leaks nothing.
    final class KennelOwner {
        weak var kennel: Kennel?
        init(kennel: Kennel) { self.kennel = kennel }
    }

    final class Town {
        let kennel: Kennel
        init(kennel: Kennel) { self.kennel = kennel }
    }

    @Test func lazyFindsTheGraphInstanceOfTheNestedFactoryThatResolvedIt() throws {
        let container = Container()
        let kennels = Counter()
        container.register(Town.self) { r in Town(kennel: r.resolve(Kennel.self)!) }
        container.register(Kennel.self) { r in
            kennels.increment()
            return Kennel(lazyOwner: r.resolve(Lazy<KennelOwner>.self)!)
        }
        container.register(KennelOwner.self) { r in KennelOwner(kennel: r.resolve(Kennel.self)!) }

        let town = try #require(container.resolve(Town.self))
        #expect(town.kennel.lazyOwner.instance.kennel === town.kennel)
        #expect(kennels.value == 1)
    }

    @Test func lazyInTransientScopeMakesItsOwnInstance() throws {
        let container = container(scope: .transient)

        let owner = try #require(container.resolve(Owner.self))
        #expect(owner.lazyDog.instance !== owner.dog)
    }

    @Test func lazyInContainerScopeGivesTheSingleton() throws {
        let container = container(scope: .container)

        let lazy = try #require(container.resolve(Lazy<Dog>.self))
        #expect(lazy.instance === container.resolve(Dog.self))
    }

    @Test func lazyValuesResolvedSeparatelyBelongToSeparateGraphs() throws {
        let container = container(scope: .graph)

        let first = try #require(container.resolve(Lazy<Dog>.self))
        let second = try #require(container.resolve(Lazy<Dog>.self))
        #expect(first.instance !== second.instance)
    }

    @Test func lazyMakesItsInstanceOnceEvenWhenManyThreadsAskAtOnce() throws {
        let calls = Counter()
        let container = Container()
        // A slow factory, so that every thread asks while the first one is still making the instance.
        container.register(Dog.self) { _ in
            calls.increment()
            Thread.sleep(forTimeInterval: 0.05)
            return Dog()
        }
        .inObjectScope(.transient)
        let lazy = try #require(container.resolve(Lazy<Dog>.self))
        let seen = Collected<ObjectIdentifier>()

        runOnThreads(16) { _ in seen.append(ObjectIdentifier(lazy.instance)) }

        #expect(calls.value == 1)
        #expect(seen.values.count == 16)
        #expect(Set(seen.values) == [ObjectIdentifier(lazy.instance)], "threads got different instances")
    }

    @Test func lazyBreaksACycleBetweenInitializers() throws {
        final class Parent {
            let child: Child
            init(child: Child) {
                self.child = child
            }
        }
        final class Child {
            var parent: Lazy<Parent>?
            init(parent: Lazy<Parent>) {
                self.parent = parent
            }
        }
        let container = Container()
        container.register(Parent.self) { r in Parent(child: try r.require(Child.self)) }
        container.register(Child.self) { r in Child(parent: try r.require(Lazy<Parent>.self)) }

        let parent = try #require(container.resolve(Parent.self))
        #expect(parent.child.parent?.instance === parent)
        // The Lazy keeps the Parent that keeps it: the test breaks that cycle, so the leak checker sees none.
        parent.child.parent = nil
    }

    @Test func lazyWithNameAndArguments() throws {
        let container = Container()
        container.register(Dog.self, name: "named") { _ in Dog(name: "named") }
        container.register(Dog.self) { (_, name: String, _: Int) in Dog(name: name) }

        #expect(container.resolve(Lazy<Dog>.self, name: "named")?.instance.name == "named")
        #expect(container.resolve(Lazy<Dog>.self, arguments: "Hachi", 42)?.instance.name == "Hachi")
        #expect(container.resolve(Lazy<Dog>.self, name: "other") == nil)
        #expect(container.resolve(Lazy<Dog>.self, arguments: 42, "Hachi") == nil)
    }

    @Test func lazyOfAForwardedType() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self)

        let lazy = try #require(container.resolve(Lazy<Animal>.self))
        #expect(lazy.instance is Dog)
    }

    @Test func lazyOfAnUnregisteredTypeIsNil() {
        #expect(Container().resolve(Lazy<Dog>.self) == nil)
    }

    @Test func lazyGetThrowsWhenTheInstanceCannotBeMade() throws {
        let container = Container()
        container.register(Engine.self) { _ in throw CoreTestError.factoryBroke }

        let lazy = try #require(container.resolve(Lazy<Engine>.self))
        let error = try #require(throws: ResolutionError.self) { try lazy.get() }
        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError as? CoreTestError == .factoryBroke)
    }

    @Test func lazyGetReportsAMissingDependencyOfTheLazyService() throws {
        let container = Container()
        container.register(Dog.self) { r in
            _ = try r.require(Engine.self, name: "missing")
            return Dog()
        }

        let lazy = try #require(container.resolve(Lazy<Dog>.self))
        let error = try #require(throws: ResolutionError.self) { try lazy.get() }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Dog", "Engine[\"missing\"]"])
    }

    // MARK: Provider

    @Test func providerMakesANewInstanceEachTime() throws {
        let calls = Counter()
        let container = container(scope: .graph, calls: calls)

        let provider = try #require(container.resolve(Provider<Dog>.self))
        #expect(calls.value == 0)
        let first = provider.instance
        let second = try provider.get()
        #expect(first !== second)
        #expect(calls.value == 2)
    }

    @Test func providerInContainerScopeGivesTheSingleton() throws {
        let container = container(scope: .container)

        let provider = try #require(container.resolve(Provider<Dog>.self))
        #expect(provider.instance === provider.instance)
        #expect(provider.instance === container.resolve(Dog.self))
    }

    @Test func providerWithNameAndArguments() throws {
        let container = Container()
        container.register(Dog.self, name: "named") { _ in Dog(name: "named") }
        container.register(Dog.self) { (_, name: String) in Dog(name: name) }

        let named = try #require(container.resolve(Provider<Dog>.self, name: "named"))
        #expect(named.instance.name == "named")
        let withArgument = try #require(container.resolve(Provider<Dog>.self, argument: "Shiro"))
        let first = withArgument.instance
        let second = withArgument.instance
        #expect(first.name == "Shiro")
        #expect(second.name == "Shiro")
        #expect(first !== second)
        #expect(container.resolve(Provider<Dog>.self, name: "other") == nil)
    }

    @Test func providerOfAnUnregisteredTypeIsNil() {
        #expect(Container().resolve(Provider<Dog>.self) == nil)
    }

    @Test func providerGetThrowsWhenTheInstanceCannotBeMade() throws {
        let container = Container()
        container.register(Engine.self) { _ in throw CoreTestError.other("no fuel") }

        let provider = try #require(container.resolve(Provider<Engine>.self))
        let error = try #require(throws: ResolutionError.self) { try provider.get() }
        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError as? CoreTestError == .other("no fuel"))
    }
}
