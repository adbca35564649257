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
}
