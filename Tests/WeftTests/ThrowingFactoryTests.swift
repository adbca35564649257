import Testing
import Weft

/// Factories and `initCompleted` callbacks may throw: `require` reports the error as a `ResolutionError`
/// that keeps it as `underlyingError` and names the path to the failing service; `resolve` returns nil.
@Suite struct ThrowingFactoryTests {
    final class Engine {
        var tuned = false
    }

    final class Car {
        let engine: Engine
        init(engine: Engine) {
            self.engine = engine
        }
    }

    final class Garage {
        let car: Car
        init(car: Car) {
            self.car = car
        }
    }

    /// `Garage -> Car -> Engine`, with the given registration for `Engine`.
    private func garage(engine register: (Container) -> Void) -> Container {
        let container = Container()
        register(container)
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }
        container.register(Garage.self) { r in Garage(car: try r.require(Car.self)) }
        return container
    }

    // MARK: Throwing factories

    @Test func throwingFactoryMakesRequireThrowFactoryFailedWithTheError() throws {
        let container = Container()
        container.register(Engine.self) { _ in throw CoreTestError.factoryBroke }

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Engine.self)
        }
        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError as? CoreTestError == .factoryBroke)
        #expect(error.serviceType == "Engine")
        #expect(error.path == ["Engine"])
        #expect(error.description.hasPrefix("[Weft.factoryFailed] The factory of Engine threw: factoryBroke"))
    }

    @Test func throwingFactoryMakesResolveReturnNil() {
        let container = Container()
        container.register(Engine.self) { _ in throw CoreTestError.factoryBroke }

        #expect(container.resolve(Engine.self) == nil)
    }

    @Test func throwingDependencyFactoryReportsThePathToIt() throws {
        let container = garage { $0.register(Engine.self) { _ in throw CoreTestError.factoryBroke } }

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Garage.self)
        }
        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError as? CoreTestError == .factoryBroke)
        #expect(error.serviceType == "Engine")
        #expect(error.path == ["Garage", "Car", "Engine"])
        #expect(error.description.hasSuffix("\nResolution path: Garage -> Car -> Engine"))
        #expect(container.resolve(Garage.self) == nil)
    }

    @Test func throwingNamedFactoryWithArgumentsIsNamedInTheError() throws {
        let container = Container()
        container.register(Engine.self, name: "v8") { (_, cylinders: Int) in
            if cylinders != 8 { throw CoreTestError.other("\(cylinders) cylinders") }
            return Engine()
        }

        #expect(container.resolve(Engine.self, name: "v8", argument: 8) != nil)
        let error = try #require(throws: ResolutionError.self) {
            try container.require(Engine.self, name: "v8", argument: 6)
        }
        #expect(error.reason == .factoryFailed)
        #expect(error.name == "v8")
        #expect(error.argumentTypes == ["Int"])
        #expect(error.path == ["Engine[\"v8\"]"])
        #expect(error.underlyingError as? CoreTestError == .other("6 cylinders"))
        let headline = "[Weft.factoryFailed] The factory of Engine named \"v8\" with arguments (Int) threw:"
        #expect(error.description.hasPrefix(headline))
    }

    @Test func resolutionErrorFromANestedRequireKeepsItsOwnReason() throws {
        let container = garage { _ in }

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Garage.self)
        }
        #expect(error.reason == .missingRegistration)
        #expect(error.underlyingError == nil)
        #expect(error.path == ["Garage", "Car", "Engine"])
    }

    @Test func containerScopedServiceWhoseFactoryThrewIsMadeAgainNextTime() throws {
        let container = Container()
        let calls = Counter()
        container.register(Engine.self) { _ in
            calls.increment()
            if calls.value == 1 { throw CoreTestError.factoryBroke }
            return Engine()
        }
        .inObjectScope(.container)

        #expect(container.resolve(Engine.self) == nil)
        let engine = try #require(container.resolve(Engine.self))
        #expect(container.resolve(Engine.self) === engine)
        #expect(calls.value == 2)
    }

    // MARK: Throwing initCompleted

    @Test func throwingInitCompletedMakesRequireThrowInitCompletedFailed() throws {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }
            .initCompleted { _, _ in throw CoreTestError.callbackBroke }

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Engine.self)
        }
        #expect(error.reason == .initCompletedFailed)
        #expect(error.underlyingError as? CoreTestError == .callbackBroke)
        #expect(error.serviceType == "Engine")
        #expect(error.path == ["Engine"])
        let headline = "[Weft.initCompletedFailed] An initCompleted callback of Engine threw: callbackBroke"
        #expect(error.description.hasPrefix(headline))
        #expect(container.resolve(Engine.self) == nil)
    }

    @Test func throwingInitCompletedOfADependencyReportsThePathToIt() throws {
        let container = garage {
            $0.register(Engine.self) { _ in Engine() }
                .initCompleted { _, _ in throw CoreTestError.callbackBroke }
        }

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Garage.self)
        }
        #expect(error.reason == .initCompletedFailed)
        #expect(error.underlyingError as? CoreTestError == .callbackBroke)
        #expect(error.path.last == "Engine")
        #expect(error.path.first == "Garage")
        #expect(container.resolve(Garage.self) == nil)
    }

    @Test func initCompletedRethrowingAResolutionErrorKeepsItsReason() throws {
        let container = Container()
        container.register(Car.self) { _ in Car(engine: Engine()) }
            .initCompleted { r, _ in _ = try r.require(Garage.self) }

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Car.self)
        }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Car", "Garage"])
    }

    @Test func containerScopedServiceWhoseInitCompletedThrewIsNotKept() throws {
        let container = Container()
        let callbacks = Counter()
        container.register(Engine.self) { _ in Engine() }
            .inObjectScope(.container)
            .initCompleted { _, engine in
                callbacks.increment()
                if callbacks.value == 1 { throw CoreTestError.callbackBroke }
                engine.tuned = true
            }

        #expect(container.resolve(Engine.self) == nil)
        let engine = try #require(container.resolve(Engine.self))
        #expect(engine.tuned)
        #expect(container.resolve(Engine.self) === engine)
        #expect(callbacks.value == 2)
    }

    // MARK: Callback order

    @Test func chainedInitCompletedCallbacksRunInTheOrderTheyWereAdded() throws {
        let container = Container()
        let log = Collected<String>()
        container.register(Engine.self) { _ in
            log.append("factory")
            return Engine()
        }
        .initCompleted { _, _ in log.append("first") }
        .initCompleted { _, _ in log.append("second") }
        .initCompleted { _, _ in log.append("third") }

        _ = try #require(container.resolve(Engine.self))
        #expect(log.values == ["factory", "first", "second", "third"])
    }

    @Test func callbacksAfterAThrowingOneDoNotRun() {
        let container = Container()
        let log = Collected<String>()
        container.register(Engine.self) { _ in Engine() }
            .initCompleted { _, _ in log.append("first") }
            .initCompleted { _, _ in throw CoreTestError.callbackBroke }
            .initCompleted { _, _ in log.append("third") }

        #expect(container.resolve(Engine.self) == nil)
        #expect(log.values == ["first"])
    }

    @Test func dependencyCallbacksRunBeforeTheResolveReturns() throws {
        let container = garage {
            $0.register(Engine.self) { _ in Engine() }
                .initCompleted { _, engine in engine.tuned = true }
        }

        let garage = try #require(container.resolve(Garage.self))
        #expect(garage.car.engine.tuned)
    }
}
