import Foundation
import Testing
import Weft

/// Errors that explain: what was asked for, along which path, what exists instead, and the cause a factory
/// or callback threw, under a stable identifier; and a container that stays usable after any failure.
///
/// Serialized because one test replaces the global `Container.loggingFunction`.
@Suite(.serialized) struct ResolutionErrorTests {
    // MARK: - Fixtures

    final class Garage {
        let car: Car
        init(car: Car) { self.car = car }
    }

    final class Car {
        let engine: Engine
        init(engine: Engine) { self.engine = engine }
    }

    final class Engine {}

    /// What the engine factories and callbacks of these tests throw.
    struct EngineTrouble: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// `Garage -> Car -> Engine named "v8" with arguments (Int, String)`.
    private func garageNeedingAV8(in container: Container) {
        container.register(Garage.self) { r in Garage(car: try r.require(Car.self)) }
        container.register(Car.self) { r in
            Car(engine: try r.require(Engine.self, name: "v8", arguments: 8, "petrol"))
        }
    }

    /// `Garage -> Car -> Engine`.
    private func garage(in container: Container) {
        container.register(Garage.self) { r in Garage(car: try r.require(Car.self)) }
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }
    }

    // MARK: - Missing registrations

    @Test func missingRegistrationNamesTypeNameArgumentsAndPath() throws {
        let container = Container()
        garageNeedingAV8(in: container)

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(error.reason == .missingRegistration)
        #expect(error.identifier == "Weft.missingRegistration")
        #expect(error.serviceType == "Engine")
        #expect(error.name == "v8")
        #expect(error.argumentTypes == ["Int", "String"])
        #expect(error.path == ["Garage", "Car", "Engine[\"v8\"]"])
        #expect(error.suggestions == [])
        #expect(error.underlyingError == nil)
        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Engine named "v8" with arguments (Int, String).
                Resolution path: Garage -> Car -> Engine["v8"]
                """
        )
    }

    @Test func missingRegistrationAtTheTopHasNoPathLine() throws {
        let container = Container()

        let error = try #require(throws: ResolutionError.self) { try container.require(Engine.self) }

        #expect(error.path == ["Engine"])
        #expect(error.description == "[Weft.missingRegistration] No registration for Engine.")
    }

    @Test func missingRegistrationSuggestsTheSameTypeUnderOtherNames() throws {
        let container = Container()
        garage(in: container)
        container.register(Engine.self, name: "v6") { _ in Engine() }
        container.register(Engine.self, name: "electric") { _ in Engine() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(error.suggestions == ["Engine named \"electric\"", "Engine named \"v6\""])
        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Engine.
                Resolution path: Garage -> Car -> Engine
                Registered instead: Engine named "electric"; Engine named "v6"
                """
        )
    }

    @Test func missingRegistrationSuggestsTheSameTypeWithOtherArguments() throws {
        let container = Container()
        garageNeedingAV8(in: container)
        container.register(Engine.self, name: "v8") { (_, cylinders: Int) in Engine() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(error.suggestions == ["Engine named \"v8\" with arguments (Int)"])
        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Engine named "v8" with arguments (Int, String).
                Resolution path: Garage -> Car -> Engine["v8"]
                Registered instead: Engine named "v8" with arguments (Int)
                """
        )
    }

    @Test func missingRegistrationSuggestsRegistrationsInParentContainers() throws {
        let grandparent = Container()
        grandparent.register(Engine.self, name: "v12") { _ in Engine() }
        let parent = Container(parent: grandparent)
        parent.register(Engine.self, name: "v6") { _ in Engine() }
        let child = Container(parent: parent)
        garageNeedingAV8(in: child)

        let error = try #require(throws: ResolutionError.self) { try child.require(Garage.self) }

        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Engine named "v8" with arguments (Int, String).
                Resolution path: Garage -> Car -> Engine["v8"]
                Registered instead: Engine named "v6" (in the parent container); Engine named "v12" \
                (in an ancestor container)
                """
        )
    }

    @Test func missingRegistrationSuggestsTheOptionalType() throws {
        let container = Container()
        garage(in: container)
        container.register(Engine?.self) { _ in Engine() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Engine.
                Resolution path: Garage -> Car -> Engine
                Registered instead: Optional<Engine>
                """
        )
    }

    @Test func missingRegistrationListsEverySuggestionSortedHereThenInTheParent() throws {
        let parent = Container()
        parent.register(Engine.self) { (_, cylinders: Int) in Engine() }
        let container = Container(parent: parent)
        garageNeedingAV8(in: container)
        container.register(Engine?.self, name: "v8") { _ in Engine() }
        container.register(Engine.self, name: "v6") { _ in Engine() }
        container.register(Engine.self) { _ in Engine() }
        container.register(Car.self, name: "v8") { _ in Car(engine: Engine()) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(
            error.suggestions == [
                "Engine", "Engine named \"v6\"", "Optional<Engine> named \"v8\"",
                "Engine with arguments (Int) (in the parent container)",
            ]
        )
        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Engine named "v8" with arguments (Int, String).
                Resolution path: Garage -> Car -> Engine["v8"]
                Registered instead: Engine; Engine named "v6"; Optional<Engine> named "v8"; Engine with arguments \
                (Int) (in the parent container)
                """
        )
    }

    // MARK: - Failing factories and callbacks keep their cause

    @Test func factoryErrorKeepsItsCauseAndGainsThePath() throws {
        let container = Container()
        garage(in: container)
        container.register(Engine.self) { _ -> Engine in throw EngineTrouble(description: "the oil pressure dropped") }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(error.reason == .factoryFailed)
        #expect(error.identifier == "Weft.factoryFailed")
        #expect(error.underlyingError as? EngineTrouble == EngineTrouble(description: "the oil pressure dropped"))
        #expect(error.path == ["Garage", "Car", "Engine"])
        #expect(
            error.description == """
                [Weft.factoryFailed] The factory of Engine threw: the oil pressure dropped
                Resolution path: Garage -> Car -> Engine
                """
        )
    }

    @Test func factoryErrorOfAServiceWithArgumentsNamesThem() throws {
        let container = Container()
        garageNeedingAV8(in: container)
        container.register(Engine.self, name: "v8") { (_, _: Int, fuel: String) -> Engine in
            throw EngineTrouble(description: "no \(fuel) left")
        }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(
            error.description == """
                [Weft.factoryFailed] The factory of Engine named "v8" with arguments (Int, String) threw: \
                no petrol left
                Resolution path: Garage -> Car -> Engine["v8"]
                """
        )
    }

    @Test func initCompletedErrorKeepsItsCauseAndGainsThePath() throws {
        let container = Container()
        garage(in: container)
        container.register(Engine.self) { _ in Engine() }
            .initCompleted { _, _ in throw EngineTrouble(description: "the spark plugs are missing") }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(error.reason == .initCompletedFailed)
        #expect(error.identifier == "Weft.initCompletedFailed")
        #expect(error.underlyingError as? EngineTrouble == EngineTrouble(description: "the spark plugs are missing"))
        #expect(error.path == ["Garage", "Car", "Engine"])
        #expect(
            error.description == """
                [Weft.initCompletedFailed] An initCompleted callback of Engine threw: the spark plugs are missing
                Resolution path: Garage -> Car -> Engine
                """
        )
    }

    @Test func initCompletedErrorOfTheRequestedServiceHasNoPathLine() throws {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }
            .initCompleted { _, _ in throw EngineTrouble(description: "the spark plugs are missing") }

        let error = try #require(throws: ResolutionError.self) { try container.require(Engine.self) }

        #expect(error.path == ["Engine"])
        #expect(
            error.description
                == "[Weft.initCompletedFailed] An initCompleted callback of Engine threw: the spark plugs are missing"
        )
    }

    @Test func registrationThatMakesAnotherTypeIsATypeMismatch() throws {
        let container = Container()
        let engine = container.register(Engine.self) { _ in Engine() }
        container.forward(Car.self, to: engine)

        let error = try #require(throws: ResolutionError.self) { try container.require(Car.self) }

        #expect(error.identifier == "Weft.typeMismatch")
        #expect(
            error.description
                == "[Weft.typeMismatch] The registration used for Car made an instance of Engine, which is not a Car."
        )
    }

    @Test func everyReasonHasAStableIdentifier() {
        #expect(
            ResolutionError.Reason.allCases.map { "Weft.\($0.rawValue)" } == [
                "Weft.missingRegistration", "Weft.circularDependency", "Weft.factoryFailed",
                "Weft.initCompletedFailed", "Weft.typeMismatch", "Weft.notOnMainActor", "Weft.requiresAsync",
                "Weft.outsideScope", "Weft.scopeEnded", "Weft.captiveDependency", "Weft.tooDeep",
            ]
        )
    }

    // MARK: - resolve reports the same text

    final class UnregisteredForLoggingTest {}

    final class NeedsUnregisteredForLoggingTest {
        init(_: UnregisteredForLoggingTest) {}
    }

    @Test func resolveReturnsNilAndLogsTheTextRequireThrows() throws {
        let container = Container()
        container.register(NeedsUnregisteredForLoggingTest.self) { r in
            NeedsUnregisteredForLoggingTest(try r.require(UnregisteredForLoggingTest.self))
        }
        let thrown = try #require(throws: ResolutionError.self) {
            try container.require(NeedsUnregisteredForLoggingTest.self)
        }

        var resolved: NeedsUnregisteredForLoggingTest?
        let messages = messagesLogged(containing: "UnregisteredForLoggingTest") {
            resolved = container.resolve(NeedsUnregisteredForLoggingTest.self)
        }

        #expect(resolved == nil)
        #expect(messages == [thrown.description])
        #expect(
            thrown.description == """
                [Weft.missingRegistration] No registration for UnregisteredForLoggingTest.
                Resolution path: NeedsUnregisteredForLoggingTest -> UnregisteredForLoggingTest
                """
        )
    }

    // MARK: - The container stays usable after a failure

    final class Singleton {}

    @Test(arguments: [ObjectScope.container, .weak])
    func sharedInstanceWhoseInitCompletedThrewIsBuiltAnewOnTheNextRequire(scope: ObjectScope) throws {
        let factoryCalls = Counter()
        let callbackCalls = Counter()
        // Keeps the half-built instance alive, so that a weak scope could still hand it out.
        let halfBuilt = Collected<Singleton>()
        let container = Container()
        container.register(Singleton.self) { _ in
            factoryCalls.increment()
            return Singleton()
        }
        .inObjectScope(scope)
        .initCompleted { _, singleton in
            if callbackCalls.increment() == 1 {
                halfBuilt.append(singleton)
                throw EngineTrouble(description: "not yet")
            }
        }

        #expect(throws: ResolutionError.self) { try container.require(Singleton.self) }
        let first = try container.require(Singleton.self)
        let second = try container.require(Singleton.self)

        #expect(factoryCalls.value == 2)
        #expect(callbackCalls.value == 2)
        #expect(first !== halfBuilt.values.first)
        #expect(first === second)
    }

    @Test func singletonWhoseCallbacksNeverRanBecauseItsGraphFailedIsBuiltAnew() throws {
        let factoryCalls = Counter()
        let callbackCalls = Counter()
        let container = Container()
        container.register(Singleton.self) { _ in
            factoryCalls.increment()
            return Singleton()
        }
        .inObjectScope(.container)
        .initCompleted { _, _ in callbackCalls.increment() }
        // Garage's factory gets the singleton, then fails before the singleton's callback can run.
        container.register(Garage.self) { r in
            _ = try r.require(Singleton.self)
            return Garage(car: try r.require(Car.self))
        }

        #expect(throws: ResolutionError.self) { try container.require(Garage.self) }
        #expect(callbackCalls.value == 0)
        _ = try container.require(Singleton.self)

        #expect(factoryCalls.value == 2)
        #expect(callbackCalls.value == 1)
    }

    @Test func singletonCompletedDuringAFailedGraphIsKept() throws {
        let factoryCalls = Counter()
        let container = Container()
        container.register(Singleton.self) { _ in
            factoryCalls.increment()
            return Singleton()
        }
        .inObjectScope(.container)
        container.register(Garage.self) { r in
            _ = try r.require(Singleton.self)
            return Garage(car: try r.require(Car.self))
        }

        #expect(throws: ResolutionError.self) { try container.require(Garage.self) }
        _ = try container.require(Singleton.self)

        #expect(factoryCalls.value == 1)
    }

    /// Graph-scoped; remembers the graph it was made in.
    final class GraphPart {
        let graph: GraphIdentifier
        init(graph: GraphIdentifier) { self.graph = graph }
    }

    final class PartPair {
        let first: GraphPart
        let second: GraphPart
        init(first: GraphPart, second: GraphPart) {
            self.first = first
            self.second = second
        }
    }

    @Test func graphScopedInstanceFromAFailedResolveIsNotReused() throws {
        let made = Collected<GraphPart>()
        let failNext = Counter()
        let container = Container()
        container.register(GraphPart.self) { r in
            let part = GraphPart(graph: try r.require(GraphIdentifier.self))
            made.append(part)
            return part
        }
        container.register(PartPair.self) { r in
            let first = try r.require(GraphPart.self)
            if failNext.increment() == 1 { throw EngineTrouble(description: "the second part is out of stock") }
            return PartPair(first: first, second: try r.require(GraphPart.self))
        }

        let error = try #require(throws: ResolutionError.self) { try container.require(PartPair.self) }
        let pair = try container.require(PartPair.self)

        #expect(error.reason == .factoryFailed)
        let parts = made.values
        #expect(parts.count == 2)
        #expect(pair.first === pair.second)
        #expect(pair.first === parts.last)
        #expect(pair.first !== parts.first)
        #expect(parts.first?.graph != parts.last?.graph)
    }

    @Test func failedCycleLeavesTheThreadReadyForTheNextGraph() throws {
        let container = Container()
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }
        container.register(Engine.self) { r in
            _ = try r.require(Car.self)
            return Engine()
        }
        container.register(GraphPart.self) { r in GraphPart(graph: try r.require(GraphIdentifier.self)) }
        container.register(PartPair.self) { r in
            PartPair(first: try r.require(GraphPart.self), second: try r.require(GraphPart.self))
        }

        #expect(throws: ResolutionError.self) { try container.require(Car.self) }
        let first = try container.require(PartPair.self)
        let second = try container.require(PartPair.self)

        #expect(first.first === first.second)
        #expect(first.first !== second.first)
        #expect(first.first.graph != second.first.graph)
        #expect(throws: ResolutionError.self) { try container.require(GraphIdentifier.self) }
    }

    @Test func failedSingletonBuildDoesNotBlockOtherThreads() throws {
        let factoryCalls = Counter()
        let container = Container()
        container.register(Singleton.self) { _ in
            if factoryCalls.increment() == 1 { throw EngineTrouble(description: "first build fails") }
            return Singleton()
        }
        .inObjectScope(.container)

        #expect(throws: ResolutionError.self) { try container.require(Singleton.self) }
        let built = Collected<Singleton>()
        let thread = runOnThread {
            if let singleton = container.resolve(Singleton.self) { built.append(singleton) }
        }

        #expect(thread.wait(seconds: 10), "a failed build left its claim behind")
        #expect(built.values.count == 1)
        #expect(factoryCalls.value == 2)
    }
}
