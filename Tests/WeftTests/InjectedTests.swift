import Foundation
import Testing
import WeftTesting

@testable import Weft

/// `@Injected` and `@OptionalInjected`: resolved when the enclosing object is made, from the given
/// container or `Container.shared`; and the message a failed `@Injected` stops the program with.
@Suite struct InjectedTests {
    final class Engine {}

    final class Car {
        @Injected var engine: Engine
        @Injected(name: "spare") var spare: Engine
    }

    final class Bike {
        @Injected var engine: Engine
        @Injected var sameEngine: Engine
    }

    final class Radio {}

    final class Dashboard {
        @OptionalInjected var radio: Radio?
        @OptionalInjected(name: "backup") var backupRadio: Radio?
    }

    /// Resolves its engine from a container of its own, whatever `Container.shared` is.
    final class Garage {
        static let own: Container = {
            let container = Container()
            container.register(Engine.self) { _ in Engine() }.inObjectScope(.container)
            return container
        }()
        @Injected(container: Garage.own) var engine: Engine
    }

    enum Broken: Error {
        case noSignal
    }

    /// Registers `Engine` (plain and named "spare"), counting factory calls.
    private static func registerEngines(_ container: Container, calls: Counter) {
        container.register(Engine.self) { _ in
            calls.increment()
            return Engine()
        }
        container.register(Engine.self, name: "spare") { _ in Engine() }
    }

    // MARK: @Injected

    @Test(.isolatedContainer) func injectedResolvesFromSharedWhenTheObjectIsMade() {
        let calls = Counter()
        Self.registerEngines(Container.shared, calls: calls)

        let car = Car()

        #expect(calls.value == 1)
        _ = car.engine
        #expect(calls.value == 1)
        #expect(car.engine !== car.spare)
    }

    @Test func injectedKeepsTheContainerThatWasSharedAtInit() {
        let mine = Container()
        let mineCalls = Counter()
        Self.registerEngines(mine, calls: mineCalls)

        let car = Container.withShared(mine) { Car() }
        _ = car.engine

        #expect(mineCalls.value == 1)
    }

    @Test(.isolatedContainer) func injectedWithAContainerIgnoresShared() {
        let garage = Garage()

        #expect(garage.engine === Garage.own.resolve(Engine.self))
        #expect(Container.shared.resolve(Engine.self) == nil)
    }

    @Test(.isolatedContainer) func injectedPropertiesOfAnObjectAFactoryMakesShareItsGraph() throws {
        Container.shared.register(Engine.self) { _ in Engine() }
        Container.shared.register(Bike.self) { _ in Bike() }

        let made = try Container.shared.require(Bike.self)
        let direct = Bike()

        #expect(made.engine === made.sameEngine)
        #expect(direct.engine !== direct.sameEngine)
    }

    @Test(.isolatedContainer) func injectedValueCanBeReplaced() {
        Self.registerEngines(Container.shared, calls: Counter())
        let car = Car()
        let replacement = Engine()

        car.engine = replacement

        #expect(car.engine === replacement)
    }

    // MARK: @OptionalInjected

    @Test(.isolatedContainer) func optionalInjectedIsNilWhenNothingIsRegistered() {
        let dashboard = Dashboard()

        #expect(dashboard.radio == nil)
        #expect(dashboard.backupRadio == nil)
    }

    @Test(.isolatedContainer) func optionalInjectedResolvesWhatIsRegistered() {
        Container.shared.register(Radio.self, name: "backup") { _ in Radio() }

        let dashboard = Dashboard()

        #expect(dashboard.radio == nil)
        #expect(dashboard.backupRadio != nil)
    }

    @Test(.isolatedContainer) func optionalInjectedIsNilWhenTheFactoryThrows() {
        Container.shared.register(Radio.self) { _ in throw Broken.noSignal }

        let messages = messagesLogged(containing: "Radio threw: noSignal") {
            #expect(Dashboard().radio == nil)
        }

        #expect(messages.count == 1)
    }

    @Test func optionalInjectedWithAContainerIgnoresShared() {
        let given = Container()
        given.register(Radio.self) { _ in Radio() }
        final class Box {
            @OptionalInjected var radio: Radio?
            @OptionalInjected var givenRadio: Radio?
            init(given: Container) {
                _givenRadio = OptionalInjected(container: given)
            }
        }

        let box = Container.withShared(Container()) { Box(given: given) }

        #expect(box.radio == nil)
        #expect(box.givenRadio != nil)
    }

    // MARK: The message of a failed @Injected

    @Test func failureMessageNamesTheDeclarationAndCarriesTheError() throws {
        let error = try #require(throws: ResolutionError.self) { try Container().require(Engine.self, name: "v8") }
        let site = InjectionSite(wrapper: "Injected", name: "v8", given: false, file: "App/Car.swift", line: 12)

        let message = site.failureMessage(for: Engine.self, error: error)

        #expect(
            message == """
                Weft: @Injected var of type Engine named "v8" (declared at App/Car.swift:12) could not be resolved \
                from Container.shared.
                [Weft.missingRegistration] No registration for Engine named "v8".
                """
        )
    }

    @Test func failureMessageSaysWhenTheContainerWasGiven() throws {
        let error = try #require(throws: ResolutionError.self) { try Container().require(Engine.self) }
        let site = InjectionSite(wrapper: "LazyInjected", name: nil, given: true, file: "App/Car.swift", line: 3)

        let message = site.failureMessage(for: Engine.self, error: error)

        #expect(message.hasPrefix("Weft: @LazyInjected var of type Engine (declared at App/Car.swift:3)"))
        #expect(message.contains("from the container given to it."))
    }

    @Test func failedInjectionStopsTheProgramWithTheErrorAndTheDeclaration() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.shared.register(SpokedWheel.self) { r in SpokedWheel(part: try r.require()) }
            _ = NeedsSpokedWheel()
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)

        #expect(output.contains("Weft: @Injected var of type SpokedWheel (declared at WeftTests/InjectedTests.swift:"))
        #expect(output.contains("InjectedTests.swift:\(NeedsSpokedWheel.declarationLine)) could not be resolved"))
        #expect(output.contains("[Weft.missingRegistration] No registration for UnregisteredSpoke."))
        #expect(output.contains("Resolution path: SpokedWheel -> UnregisteredSpoke"))
    }
}

/// Never registered anywhere: the exit test's process resolves it from its own `Container.shared`.
final class UnregisteredSpoke {}

final class SpokedWheel {
    init(part _: UnregisteredSpoke) {}
}

/// Asks for a `SpokedWheel`, whose factory needs the unregistered part, in its initializer.
final class NeedsSpokedWheel {
    static let declarationLine = #line + 1
    @Injected var wheel: SpokedWheel
}
