import Testing
import Weft

/// Decorators of forwarded types: `decorate(Animal.self)` applies to resolves of `Animal` made through
/// `register(Cat.self).implements(Animal.self)` or `forward`, and not to resolves of `Cat`; the two share
/// `Cat`'s instance, and the decorated `Animal` lives in `Cat`'s scope.
@Suite struct ForwardDecorationTests {
    protocol Animal: AnyObject, Sendable { var sound: String { get } }

    final class Cat: Animal {
        let sound = "meow"
    }

    final class Loud: Animal {
        let inner: any Animal
        init(_ inner: any Animal) { self.inner = inner }
        var sound: String { inner.sound.uppercased() }
    }

    final class Echo: Animal {
        let inner: any Animal
        init(_ inner: any Animal) { self.inner = inner }
        var sound: String { inner.sound + " " + inner.sound }
    }

    final class Log: Sendable {}

    final class Logged: Animal {
        let inner: any Animal
        let log: Log
        init(_ inner: any Animal, log: Log) { (self.inner, self.log) = (inner, log) }
        var sound: String { inner.sound }
    }

    @Test func decoratorOfAForwardedTypeAppliesToResolvesOfThatTypeOnly() throws {
        let container = Container()
        container.register(Cat.self) { _ in Cat() }.implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        #expect(try container.require((any Animal).self).sound == "MEOW")
        #expect(try container.require(Cat.self).sound == "meow")
    }

    @Test func decoratorDeclaredBeforeTheForwardApplies() throws {
        let container = Container()
        container.decorate((any Animal).self) { _, inner in Loud(inner) }
        container.register(Cat.self) { _ in Cat() }.implements((any Animal).self)

        #expect(try container.require((any Animal).self).sound == "MEOW")
        #expect(try container.require(Cat.self).sound == "meow")
    }

    @Test func forwardWithForwardIsDecoratedToo() throws {
        let container = Container()
        let cat = container.register(Cat.self) { _ in Cat() }
        container.decorate((any Animal).self) { _, inner in Loud(inner) }
        container.forward((any Animal).self, to: cat)

        #expect(try container.require((any Animal).self).sound == "MEOW")
    }

    @Test func singletonForwardSharesTheInstanceAndKeepsOneDecoratedInstance() throws {
        let container = Container()
        // The scope set after `implements`: the decorated forward follows it.
        container.register(Cat.self) { _ in Cat() }.implements((any Animal).self).inObjectScope(.container)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        let animal = try container.require((any Animal).self)
        #expect(animal === (try container.require((any Animal).self)))
        let loud = try #require(animal as? Loud)
        #expect(loud.inner === (try container.require(Cat.self)))
    }

    @Test func transientForwardIsDecoratedAroundANewInstanceEachTime() throws {
        let container = Container()
        container.register(Cat.self) { _ in Cat() }.inObjectScope(.transient).implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        let first = try #require(try container.require((any Animal).self) as? Loud)
        let second = try #require(try container.require((any Animal).self) as? Loud)
        #expect(first !== second)
        #expect(first.inner !== second.inner)
    }

    @Test func decoratorsOfAForwardedTypeApplyInDeclarationOrder() throws {
        let container = Container()
        container.register(Cat.self) { _ in Cat() }.implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }
        container.decorate((any Animal).self) { _, inner in Echo(inner) }

        #expect(try container.require((any Animal).self).sound == "MEOW MEOW")
    }

    @Test func childDecoratesItsParentsForwardedTypeForItselfOnly() throws {
        let parent = Container()
        parent.register(Cat.self) { _ in Cat() }.inObjectScope(.container).implements((any Animal).self)
        let child = Container(parent: parent)
        child.decorate((any Animal).self) { _, inner in Loud(inner) }

        let decorated = try #require(try child.require((any Animal).self) as? Loud)
        #expect(decorated.inner === (try parent.require(Cat.self)))
        #expect(try parent.require((any Animal).self).sound == "meow")
    }

    @Test func decoratorOfAForwardedTypeHasDependencies() throws {
        let container = Container()
        container.register(Log.self) { _ in Log() }.inObjectScope(.container)
        container.register(Cat.self) { _ in Cat() }.implements((any Animal).self)
        container.decorate((any Animal).self) { r, inner in Logged(inner, log: try r.require(Log.self)) }

        let animal = try #require(try container.require((any Animal).self) as? Logged)
        #expect(animal.log === (try container.require(Log.self)))
        try container.verify()
    }

    @Test func verifyReportsAMissingDependencyOfADecoratorOfAForwardedType() throws {
        let container = Container()
        container.register(Cat.self) { _ in Cat() }.implements((any Animal).self)
        container.decorate((any Animal).self) { r, inner in Logged(inner, log: try r.require(Log.self)) }

        let missing = container.verificationReport().problems(ofKind: .missingRegistration)
        #expect(missing.count == 1)
        #expect(missing.first?.path.last == "Log")
    }

    @Test func pathThroughADecoratedForwardNamesTheForwardedRegistration() throws {
        final class Tabby: Animal {
            let sound = "purr"
            init(log: Log) {}
        }
        let container = Container()
        container.register(Tabby.self) { r in Tabby(log: try r.require(Log.self)) }.implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        let error = try #require(throws: ResolutionError.self) { try container.require((any Animal).self) }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Animal", "Tabby", "Log"])
    }

    @Test func graphDrawsTheDecoratedForwardWithAnEdgeToTheRegistrationItForwardsTo() throws {
        let container = Container()
        container.register(Log.self) { _ in Log() }
        container.register(Cat.self) { _ in Cat() }.implements((any Animal).self)
        container.decorate((any Animal).self) { r, inner in Logged(inner, log: try r.require(Log.self)) }

        let graph = container.dependencyGraph()
        let animal = try #require(graph.node(for: (any Animal).self))
        #expect(animal.decoratorCount == 1)
        let cat = try #require(graph.node(for: Cat.self))
        #expect(cat.forwardedTypes.isEmpty)
        let log = try #require(graph.node(for: Log.self))
        #expect(Set(graph.dependencies(of: animal.id).map(\.to)) == [cat.id, log.id])
    }

    @Test func asyncForwardedRegistrationIsDecoratedWhenResolvedAsynchronously() async throws {
        let container = Container()
        container.register(Cat.self) { _ in
            await Task.yield()
            return Cat()
        }
        .inObjectScope(.container)
        .implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        let animal = try await container.async.require((any Animal).self)
        #expect(animal.sound == "MEOW")
        #expect((animal as? Loud)?.inner === (try await container.async.require(Cat.self)))
    }
}
