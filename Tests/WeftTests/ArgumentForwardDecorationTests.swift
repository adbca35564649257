import Testing
import Weft

/// Decorators of forwarded types whose registration takes runtime arguments: `decorate(Animal.self)` wraps what
/// `require(Animal.self, argument:)` gets through `register(Cat.self) { r, name in ... }.implements(Animal.self)`,
/// as it does without arguments: resolves of `Cat` stay undecorated and the two share `Cat`'s instance where its
/// scope says so.
@Suite struct ArgumentForwardDecorationTests {
    protocol Animal: AnyObject, Sendable { var sound: String { get } }

    final class Cat: Animal {
        let sound: String
        init(name: String) { sound = name + " meows" }
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

    @Test func forwardedTypeWhoseRegistrationTakesArgumentsIsDecorated() throws {
        let container = Container()
        container.register(Cat.self) { (_, name: String) in Cat(name: name) }.implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        #expect(try container.require((any Animal).self, argument: "Tom").sound == "TOM MEOWS")
        #expect(try container.require(Cat.self, argument: "Tom").sound == "Tom meows")
    }

    @Test func decoratorDeclaredBeforeTheForwardWithArgumentsApplies() throws {
        let container = Container()
        container.decorate((any Animal).self) { _, inner in Loud(inner) }
        container.register(Cat.self) { (_, name: String) in Cat(name: name) }.implements((any Animal).self)

        #expect(try container.require((any Animal).self, argument: "Tom").sound == "TOM MEOWS")
        #expect(try container.require(Cat.self, argument: "Tom").sound == "Tom meows")
    }

    @Test func forwardWithArgumentsMadeWithForwardIsDecoratedToo() throws {
        let container = Container()
        let cat = container.register(Cat.self) { (_, name: String, lives: Int) in Cat(name: name + "\(lives)") }
        container.decorate((any Animal).self) { _, inner in Loud(inner) }
        container.forward((any Animal).self, to: cat)

        #expect(try container.require((any Animal).self, arguments: "Tom", 9).sound == "TOM9 MEOWS")
    }

    @Test func singletonForwardWithArgumentsSharesCatsInstanceAndKeepsOneDecoratedInstance() throws {
        let container = Container()
        container.register(Cat.self) { (_, name: String) in Cat(name: name) }
            .implements((any Animal).self)
            .inObjectScope(.container)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        let animal = try container.require((any Animal).self, argument: "Tom")
        #expect(animal === (try container.require((any Animal).self, argument: "Ann")))
        let loud = try #require(animal as? Loud)
        #expect(loud.inner === (try container.require(Cat.self, argument: "Bob")))
        #expect(loud.sound == "TOM MEOWS")
    }

    @Test func transientForwardWithArgumentsIsDecoratedAroundANewInstanceEachTime() throws {
        let container = Container()
        container.register(Cat.self) { (_, name: String) in Cat(name: name) }
            .inObjectScope(.transient)
            .implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        let first = try #require(try container.require((any Animal).self, argument: "Tom") as? Loud)
        let second = try #require(try container.require((any Animal).self, argument: "Ann") as? Loud)
        #expect(first.inner !== second.inner)
        #expect([first.sound, second.sound] == ["TOM MEOWS", "ANN MEOWS"])
    }

    @Test func decoratorsOfAForwardedTypeWithArgumentsApplyInDeclarationOrder() throws {
        let container = Container()
        container.register(Cat.self) { (_, name: String) in Cat(name: name) }.implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }
        container.decorate((any Animal).self) { _, inner in Echo(inner) }

        #expect(try container.require((any Animal).self, argument: "Tom").sound == "TOM MEOWS TOM MEOWS")
    }

    @Test func childDecoratesItsParentsForwardedTypeWithArgumentsForItselfOnly() throws {
        let parent = Container()
        parent.register(Cat.self) { (_, name: String) in Cat(name: name) }
            .inObjectScope(.container)
            .implements((any Animal).self)
        let child = Container(parent: parent)
        child.decorate((any Animal).self) { _, inner in Loud(inner) }

        let decorated = try #require(try child.require((any Animal).self, argument: "Tom") as? Loud)
        #expect(decorated.inner === (try parent.require(Cat.self, argument: "Tom")))
        #expect(try parent.require((any Animal).self, argument: "Tom").sound == "Tom meows")
    }

    @Test func decoratorOfAForwardedTypeWithArgumentsResolvesItsDependencies() throws {
        let container = Container()
        container.register(Log.self) { _ in Log() }.inObjectScope(.container)
        container.register(Cat.self) { (_, name: String) in Cat(name: name) }.implements((any Animal).self)
        container.decorate((any Animal).self) { r, inner in Logged(inner, log: try r.require(Log.self)) }

        let animal = try #require(try container.require((any Animal).self, argument: "Tom") as? Logged)
        #expect(animal.log === (try container.require(Log.self)))
    }

    @Test func pathThroughADecoratedForwardWithArgumentsNamesTheForwardedRegistration() throws {
        final class Tabby: Animal {
            let sound = "purr"
            init(log: Log) {}
        }
        let container = Container()
        container.register(Tabby.self) { (r, _: String) in Tabby(log: try r.require(Log.self)) }
            .implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        let error = try #require(throws: ResolutionError.self) {
            try container.require((any Animal).self, argument: "Tom")
        }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Animal", "Tabby", "Log"])
    }

    @Test func asyncForwardedRegistrationWithArgumentsIsDecoratedWhenResolvedAsynchronously() async throws {
        let container = Container()
        container.register(Cat.self) { (_: AsyncResolver, name: String) in
            await Task.yield()
            return Cat(name: name)
        }
        .inObjectScope(.container)
        .implements((any Animal).self)
        container.decorate((any Animal).self) { _, inner in Loud(inner) }

        let animal = try await container.async.require((any Animal).self, arguments: "Tom")
        #expect(animal.sound == "TOM MEOWS")
        #expect((animal as? Loud)?.inner === (try await container.async.require(Cat.self, arguments: "Tom")))
        // The kept decorated instance an async resolve made, as for any async singleton.
        #expect(try container.require((any Animal).self, argument: "Ann") === animal)
    }

    @Test func asyncDecoratorOfAForwardedTypeWithArgumentsRunsFromAsyncCode() async throws {
        let container = Container()
        container.register(Cat.self) { (_, name: String) in Cat(name: name) }.implements((any Animal).self)
        container.decorate((any Animal).self) { (_: AsyncResolver, inner: any Animal) in
            await Task.yield()
            return Loud(inner)
        }

        #expect(try await container.async.require((any Animal).self, arguments: "Tom").sound == "TOM MEOWS")
        let error = try #require(throws: ResolutionError.self) {
            try container.require((any Animal).self, argument: "Tom")
        }
        #expect(error.reason == .requiresAsync)
    }
}
