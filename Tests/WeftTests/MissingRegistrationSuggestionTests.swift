import Testing
import Weft

/// What a missing registration says was registered instead, and how it could be made optional: the place of each
/// suggestion is counted in the containers the user made (a scope, or verification's copy of the container, is
/// not a container of its own), and the hint spells an optional the way it can be written.
@Suite struct MissingRegistrationSuggestionTests {
    final class Engine {}

    final class Car {
        init(engine: Engine) {}
    }

    /// `Car` needs `Engine` named "v8"; only "v6" is registered, in `container`.
    private func carNeedingV8() -> Container {
        let container = Container()
        container.register(Engine.self, name: "v6") { _ in Engine() }
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self, name: "v8")) }
        return container
    }

    @Test func verificationSuggestsARegistrationOfTheVerifiedContainerWithoutAPlace() throws {
        let report = carNeedingV8().verificationReport()

        let problem = try #require(report.problems.first)
        #expect(problem.details == [#"registered instead: Engine named "v6""#])
    }

    @Test func verificationOfAChildPlacesTheSuggestionInTheParent() throws {
        let child = Container(parent: carNeedingV8())

        let problem = try #require(child.verificationReport().problems.first)

        #expect(problem.details == [#"registered instead: Engine named "v6" (in the parent container)"#])
    }

    @Test func aScopeSuggestsTheRegistrationsOfItsContainerWithoutAPlace() throws {
        let scope = carNeedingV8().makeScope()

        let error = try #require(throws: ResolutionError.self) { try scope.require(Car.self) }

        #expect(error.suggestions == [#"Engine named "v6""#])
    }

    @Test func aScopeOfAChildPlacesTheSuggestionInTheChildsParent() throws {
        let scope = Container(parent: carNeedingV8()).makeScope()

        let error = try #require(throws: ResolutionError.self) { try scope.require(Car.self) }

        #expect(error.suggestions == [#"Engine named "v6" (in the parent container)"#])
    }

    @Test func theHintForANamedDependencyOffersOnlyTheOptionalThatCanBeWritten() throws {
        let problem = try #require(carNeedingV8().verificationReport().problems.first)

        #expect(
            problem.hint == """
                Register Engine["v8"] in this container or a parent. If Car can do without it, take it as an \
                optional (`r.resolve(Engine.self, name: "v8")` in a factory).
                """
        )
    }

    @Test func theHintForAnUnnamedDependencyOffersBothOptionals() throws {
        let container = Container()
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }

        let problem = try #require(container.verificationReport().problems.first)

        #expect(
            problem.hint == """
                Register Engine in this container or a parent. If Car can do without it, take it as an optional \
                (Engine? in the initializer, `r.resolve` in a factory).
                """
        )
    }

    @Test func theHintForADependencyWithArgumentsOffersTheFactorysOptional() throws {
        let container = Container()
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self, argument: 8)) }

        let problem = try #require(container.verificationReport().problems.first)

        #expect(
            problem.hint.hasSuffix("take it as an optional (`r.resolve(Engine.self, argument: ...)` in a factory)."))
    }
}
