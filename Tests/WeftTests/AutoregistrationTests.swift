import Testing
import Weft

/// `autoregister`: a service made by its initializer, each parameter resolved by its type; any number of
/// parameters, runtime arguments matched to parameters by type, and the same configuration chain as `register`.
@Suite struct AutoregistrationTests {
    protocol ParentProtocol: AnyObject {
        var child: Child { get }
    }

    final class Child {}

    final class Parent: ParentProtocol {
        let child: Child
        let logger: Logger?
        init(child: Child, logger: Logger?) {
            self.child = child
            self.logger = logger
        }
    }

    final class Logger {}

    final class Greeter {
        let name: String
        let logger: Logger
        init(name: String, logger: Logger) {
            self.name = name
            self.logger = logger
        }
    }

    final class Route {
        let path: String
        let id: Int
        let verbose: Bool
        let logger: Logger
        init(path: String, id: Int, verbose: Bool, logger: Logger) {
            (self.path, self.id, self.verbose, self.logger) = (path, id, verbose, logger)
        }
    }

    final class Deferred {
        let lazyChild: Lazy<Child>
        let childProvider: Provider<Child>
        init(lazyChild: Lazy<Child>, childProvider: Provider<Child>) {
            (self.lazyChild, self.childProvider) = (lazyChild, childProvider)
        }
    }

    final class Broken: Error {}

    // MARK: Initializers of any arity

    @Test func initializerWithoutParametersMakesTheService() throws {
        let container = Container()
        container.autoregister(Child.self, initializer: Child.init)

        _ = try container.require(Child.self)
    }

    @Test func eachParameterIsResolvedByItsTypeForAProtocolService() throws {
        let container = Container()
        container.autoregister(Child.self, initializer: Child.init).inObjectScope(.container)
        container.autoregister(Logger.self, initializer: Logger.init)
        container.autoregister(ParentProtocol.self, initializer: Parent.init)

        let parent = try container.require(ParentProtocol.self)
        #expect(parent.child === (try container.require(Child.self)))
        #expect((parent as? Parent)?.logger != nil)
    }

    @Test func initializerWithTwentyOneParametersResolvesEveryOne() throws {
        let container = Container()
        Wide.registerParts(in: container)
        container.autoregister(Wide.self, initializer: Wide.init)

        let wide = try container.require(Wide.self)
        #expect(wide.count == 21)
        #expect(wide.last === (try container.require(Wide.P21.self)))
    }

    @Test func serviceTypeIsInferredFromTheInitializer() throws {
        let container = Container()
        container.autoregister(initializer: Child.init)
        container.autoregister(initializer: Logger.init)
        container.autoregister(initializer: Parent.init)

        let parent = try container.require(Parent.self)
        #expect(parent.logger != nil)
    }

    // MARK: Configuration, as for register

    @Test func nameRegistersUnderThatNameOnly() throws {
        let container = Container()
        container.autoregister(Child.self, name: "first", initializer: Child.init)

        #expect(container.resolve(Child.self, name: "first") != nil)
        #expect(container.resolve(Child.self) == nil)
    }

    @Test func scopeAndInitCompletedChainAsForRegister() throws {
        let completed = Counter()
        let container = Container()
        container.autoregister(Child.self, initializer: Child.init)
            .inObjectScope(.container)
            .initCompleted { _, _ in completed.increment() }

        let first = try container.require(Child.self)
        let second = try container.require(Child.self)
        #expect(first === second)
        #expect(completed.value == 1)
    }

    @Test func implementsForwardsAnotherTypeToTheRegistration() throws {
        let container = Container()
        container.autoregister(Child.self, initializer: Child.init).inObjectScope(.container)
        container.autoregister(Logger.self, initializer: Logger.init)
        container.autoregister(Parent.self, initializer: Parent.init)
            .inObjectScope(.container)
            .implements(ParentProtocol.self)

        #expect((try container.require(ParentProtocol.self)) === (try container.require(Parent.self)))
    }

    // MARK: Parameter types resolved specially

    @Test func optionalParameterIsNilWhenTheServiceIsNotRegistered() throws {
        let container = Container()
        container.autoregister(Child.self, initializer: Child.init)
        container.autoregister(Parent.self, initializer: Parent.init)

        let parent = try container.require(Parent.self)
        #expect(parent.logger == nil)
    }

    @Test func optionalParameterStillFailsWhenTheServiceFailsToBuild() throws {
        let container = Container()
        container.autoregister(Child.self, initializer: Child.init)
        container.register(Logger.self) { _ in throw Broken() }
        container.autoregister(Parent.self, initializer: Parent.init)

        let error = try #require(throws: ResolutionError.self) { try container.require(Parent.self) }
        #expect(error.reason == .factoryFailed)
        #expect(error.path == ["Parent", "Logger"])
    }

    @Test func lazyAndProviderParametersMakeTheirInstancesOnUse() throws {
        let made = Counter()
        let container = Container()
        container.register(Child.self) { _ in
            made.increment()
            return Child()
        }
        container.autoregister(Deferred.self, initializer: Deferred.init)

        let deferred = try container.require(Deferred.self)
        #expect(made.value == 0)
        _ = deferred.lazyChild.instance
        _ = deferred.childProvider.instance
        _ = deferred.childProvider.instance
        #expect(made.value == 3)
    }

    @Test func missingParameterFailsWithThePathToIt() throws {
        let container = Container()
        container.autoregister(Logger.self, initializer: Logger.init)
        container.autoregister(Parent.self, initializer: Parent.init)

        let error = try #require(throws: ResolutionError.self) { try container.require(Parent.self) }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Parent", "Child"])
    }

    @Test func throwingInitializerFailsAsAThrowingFactory() throws {
        let container = Container()
        container.autoregister(Child.self) { () throws -> Child in throw Broken() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Child.self) }
        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError is Broken)
    }

    // MARK: Runtime arguments

    @Test func oneRuntimeArgumentGoesToTheParameterOfItsType() throws {
        let container = Container()
        container.autoregister(Logger.self, initializer: Logger.init)
        container.autoregister(Greeter.self, argument: String.self, initializer: Greeter.init)

        let greeter = try container.require(Greeter.self, argument: "Ada")
        #expect(greeter.name == "Ada")
        #expect(container.resolve(Greeter.self) == nil)
    }

    @Test func twoAndThreeRuntimeArgumentsGoToTheParametersOfTheirTypes() throws {
        let container = Container()
        container.autoregister(Logger.self, initializer: Logger.init)
        container.autoregister(Route.self, name: "three", arguments: String.self, Int.self, Bool.self) {
            (path: String, id: Int, verbose: Bool, logger: Logger) in
            Route(path: path, id: id, verbose: verbose, logger: logger)
        }
        container.autoregister(Route.self, name: "two", arguments: String.self, Int.self) {
            (path: String, id: Int, logger: Logger) in
            Route(path: path, id: id, verbose: false, logger: logger)
        }

        let three = try container.require(Route.self, name: "three", arguments: "/users", 7, true)
        #expect((three.path, three.id, three.verbose) == ("/users", 7, true))
        let two = try container.require(Route.self, name: "two", arguments: "/cart", 2)
        #expect((two.path, two.id, two.verbose) == ("/cart", 2, false))
    }
}

/// A service whose initializer takes 21 parameters: one more than SwinjectAutoregistration's overloads.
final class Wide {
    final class P1 {}
    final class P2 {}
    final class P3 {}
    final class P4 {}
    final class P5 {}
    final class P6 {}
    final class P7 {}
    final class P8 {}
    final class P9 {}
    final class P10 {}
    final class P11 {}
    final class P12 {}
    final class P13 {}
    final class P14 {}
    final class P15 {}
    final class P16 {}
    final class P17 {}
    final class P18 {}
    final class P19 {}
    final class P20 {}
    final class P21 {}

    let count: Int
    let last: P21

    // swift-format-ignore
    init(
        _: P1, _: P2, _: P3, _: P4, _: P5, _: P6, _: P7, _: P8, _: P9, _: P10, _: P11, _: P12, _: P13, _: P14,
        _: P15, _: P16, _: P17, _: P18, _: P19, _: P20, _ last: P21
    ) {
        count = 21
        self.last = last
    }

    /// Registers each part, `.container`-scoped so that a test can compare identities.
    static func registerParts(in container: Container) {
        container.autoregister(P1.self, initializer: P1.init)
        container.autoregister(P2.self, initializer: P2.init)
        container.autoregister(P3.self, initializer: P3.init)
        container.autoregister(P4.self, initializer: P4.init)
        container.autoregister(P5.self, initializer: P5.init)
        container.autoregister(P6.self, initializer: P6.init)
        container.autoregister(P7.self, initializer: P7.init)
        container.autoregister(P8.self, initializer: P8.init)
        container.autoregister(P9.self, initializer: P9.init)
        container.autoregister(P10.self, initializer: P10.init)
        container.autoregister(P11.self, initializer: P11.init)
        container.autoregister(P12.self, initializer: P12.init)
        container.autoregister(P13.self, initializer: P13.init)
        container.autoregister(P14.self, initializer: P14.init)
        container.autoregister(P15.self, initializer: P15.init)
        container.autoregister(P16.self, initializer: P16.init)
        container.autoregister(P17.self, initializer: P17.init)
        container.autoregister(P18.self, initializer: P18.init)
        container.autoregister(P19.self, initializer: P19.init)
        container.autoregister(P20.self, initializer: P20.init)
        container.autoregister(P21.self, initializer: P21.init).inObjectScope(.container)
    }
}
