import Testing
import Weft

/// Decorators of registrations whose factories take runtime arguments: `decorate(Service.self)` wraps what the
/// factory makes from the arguments, whether the registration comes before the decorator or after it.
@Suite struct ArgumentDecorationTests {
    protocol Greeter: AnyObject, Sendable { var greeting: String { get } }

    final class Plain: Greeter {
        let greeting: String
        init(_ greeting: String) { self.greeting = greeting }
    }

    final class Shouting: Greeter {
        let inner: any Greeter
        init(_ inner: any Greeter) { self.inner = inner }
        var greeting: String { inner.greeting.uppercased() + "!" }
    }

    final class Log: Sendable {}

    final class Logged: Greeter {
        let inner: any Greeter
        let log: Log
        init(_ inner: any Greeter, log: Log) { (self.inner, self.log) = (inner, log) }
        var greeting: String { "logged " + inner.greeting }
    }

    @Test func registrationWithAnArgumentMadeAfterTheDecoratorIsDecorated() throws {
        let container = Container()
        container.decorate((any Greeter).self) { _, inner in Shouting(inner) }
        container.register((any Greeter).self) { (_, name: String) in Plain("hello " + name) }

        #expect(try container.require((any Greeter).self, argument: "ana").greeting == "HELLO ANA!")
    }

    @Test func registrationWithArgumentsMadeBeforeTheDecoratorIsDecorated() throws {
        let container = Container()
        container.register((any Greeter).self) { (_, name: String, times: Int) in
            Plain(String(repeating: name, count: times))
        }
        container.decorate((any Greeter).self) { _, inner in Shouting(inner) }

        #expect(try container.require((any Greeter).self, arguments: "ab", 2).greeting == "ABAB!")
    }

    @Test func registrationsWithAndWithoutArgumentsAreDecoratedInDeclarationOrder() throws {
        let container = Container()
        container.register(Log.self) { _ in Log() }.inObjectScope(.container)
        container.register((any Greeter).self) { _ in Plain("hi") }
        container.register((any Greeter).self) { (_, name: String) in Plain(name) }
        container.decorate((any Greeter).self) { _, inner in Shouting(inner) }
        container.decorate((any Greeter).self) { r, inner in Logged(inner, log: try r.require(Log.self)) }

        #expect(try container.require((any Greeter).self).greeting == "logged HI!")
        #expect(try container.require((any Greeter).self, argument: "yo").greeting == "logged YO!")
    }

    @Test func decoratorOnlyAppliesToRegistrationsUnderItsName() throws {
        let container = Container()
        container.register((any Greeter).self, name: "formal") { (_, name: String) in Plain("dear " + name) }
        container.register((any Greeter).self) { (_, name: String) in Plain(name) }
        container.decorate((any Greeter).self, name: "formal") { _, inner in Shouting(inner) }

        #expect(try container.require((any Greeter).self, name: "formal", argument: "x").greeting == "DEAR X!")
        #expect(try container.require((any Greeter).self, argument: "x").greeting == "x")
    }

    @Test func childDecoratesItsParentsRegistrationWithArgumentsForItselfOnly() throws {
        let parent = Container()
        parent.register((any Greeter).self) { (_, name: String) in Plain(name) }
        let child = Container(parent: parent)
        child.decorate((any Greeter).self) { _, inner in Shouting(inner) }

        #expect(try child.require((any Greeter).self, argument: "x").greeting == "X!")
        #expect(try parent.require((any Greeter).self, argument: "x").greeting == "x")
    }

    @Test func singletonWithAnArgumentKeepsTheDecoratedInstance() throws {
        let container = Container()
        container.register((any Greeter).self) { (_, name: String) in Plain(name) }.inObjectScope(.container)
        container.decorate((any Greeter).self) { _, inner in Shouting(inner) }

        let first = try container.require((any Greeter).self, argument: "a")
        #expect(first is Shouting)
        #expect(first === (try container.require((any Greeter).self, argument: "a")))
    }

    @Test func initCompletedOfARegistrationWithAnArgumentReceivesTheDecoratedInstance() throws {
        let container = Container()
        let seen = Collected<String>()
        container.decorate((any Greeter).self) { _, inner in Shouting(inner) }
        container.register((any Greeter).self) { (_, name: String) in Plain(name) }
            .initCompleted { _, greeter in seen.append(greeter.greeting) }

        _ = try container.require((any Greeter).self, argument: "hey")
        #expect(seen.values == ["HEY!"])
    }

    @Test func asyncRegistrationWithAnArgumentIsDecorated() async throws {
        let container = Container()
        container.register((any Greeter).self) { (_: AsyncResolver, name: String) in
            await Task.yield()
            return Plain(name)
        }
        container.decorate((any Greeter).self) { _, inner in Shouting(inner) }

        #expect(try await container.async.require((any Greeter).self, arguments: "async").greeting == "ASYNC!")
    }
}
