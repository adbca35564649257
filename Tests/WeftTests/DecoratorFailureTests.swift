import Testing
import Weft

/// A decorator that throws is reported as the decorator's failure, not its factory's: in the error's text, in
/// ``ResolutionError/thrownByDecorator`` and in verification's finding, for synchronous, `async` and `@MainActor`
/// decorators, with and without runtime arguments. The caller still receives its own error as the underlying one.
@Suite struct DecoratorFailureTests {
    final class Engine: Sendable {}

    final class Car: Sendable {
        init(engine: Engine) {}
    }

    struct Boom: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    private static func carNeedingEngine() -> Container {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }
        return container
    }

    @Test func throwingDecoratorIsReportedAsTheDecoratorNotTheFactory() throws {
        let container = Self.carNeedingEngine()
        container.decorate(Engine.self) { _, _ in throw Boom() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Car.self) }

        #expect(error.reason == .factoryFailed)
        #expect(error.thrownByDecorator)
        #expect(error.underlyingError is Boom)
        #expect(error.path == ["Car", "Engine"])
        #expect(
            error.description == """
                [Weft.factoryFailed] A decorator of Engine threw (its factory had returned): boom
                Resolution path: Car -> Engine
                """
        )
    }

    @Test func throwingFactoryOfADecoratedServiceIsStillTheFactory() throws {
        let container = Container()
        container.register(Engine.self) { _ in throw Boom() }
        container.decorate(Engine.self) { _, inner in inner }

        let error = try #require(throws: ResolutionError.self) { try container.require(Engine.self) }

        #expect(!error.thrownByDecorator)
        #expect(error.description == "[Weft.factoryFailed] The factory of Engine threw: boom")
    }

    @Test func decoratorWhoseOwnResolveFailsReportsThatFailure() throws {
        let container = Self.carNeedingEngine()
        container.decorate(Engine.self) { r, inner in
            _ = try r.require(Car.self, name: "missing")
            return inner
        }

        let error = try #require(throws: ResolutionError.self) { try container.require(Engine.self) }

        #expect(error.reason == .missingRegistration)
        #expect(!error.thrownByDecorator)
    }

    @Test func throwingDecoratorOfARegistrationWithArgumentsIsReportedAsTheDecorator() throws {
        let container = Container()
        container.register(Engine.self) { (_, _: Int) in Engine() }
        container.decorate(Engine.self) { _, _ in throw Boom() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Engine.self, argument: 8) }

        #expect(error.thrownByDecorator)
        #expect(error.underlyingError is Boom)
        #expect(error.description.hasPrefix("[Weft.factoryFailed] A decorator of Engine with arguments (Int) threw"))
    }

    @Test func throwingDecoratorDeclaredInAParentIsReportedFromAChild() throws {
        let parent = Self.carNeedingEngine()
        parent.decorate(Engine.self) { _, _ in throw Boom() }
        let child = Container(parent: parent)

        let error = try #require(throws: ResolutionError.self) { try child.require(Car.self) }

        #expect(error.thrownByDecorator)
        #expect(error.underlyingError is Boom)
    }

    @Test func synchronousDecoratorThrowingInAnAsyncResolveIsReportedAsTheDecorator() async throws {
        let container = Self.carNeedingEngine()
        container.decorate(Engine.self) { _, _ in throw Boom() }

        let error = try await #require(throws: ResolutionError.self) { try await container.async.require(Car.self) }

        #expect(error.thrownByDecorator)
        #expect(error.underlyingError is Boom)
        #expect(error.path == ["Car", "Engine"])
    }

    @Test func asyncDecoratorThrowingIsReportedAsTheDecorator() async throws {
        let container = Self.carNeedingEngine()
        container.decorate(Engine.self) { (_: AsyncResolver, _: Engine) async throws -> Engine in throw Boom() }

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Engine.self)
        }

        #expect(error.thrownByDecorator)
        #expect(error.underlyingError is Boom)
        #expect(error.description.hasPrefix("[Weft.factoryFailed] A decorator of Engine threw"))
    }

    @Test func asyncDecoratorOfAnAsyncRegistrationThrowingIsReportedAsTheDecorator() async throws {
        let container = Container()
        container.register(Engine.self) { (_: AsyncResolver) async in Engine() }
        container.decorate(Engine.self) { (_: AsyncResolver, _: Engine) async throws -> Engine in throw Boom() }

        let error = try await #require(throws: ResolutionError.self) { try await container.async.require(Engine.self) }

        #expect(error.thrownByDecorator)
        #expect(error.underlyingError is Boom)
    }

    @Test @MainActor func mainActorDecoratorThrowingIsReportedAsTheDecorator() throws {
        let container = Self.carNeedingEngine()
        container.decorate(Engine.self) { @MainActor _, _ in throw Boom() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Car.self) }

        #expect(error.thrownByDecorator)
        #expect(error.underlyingError is Boom)
    }

    @Test func mainActorDecoratorThrowingInAnAsyncResolveIsReportedAsTheDecorator() async throws {
        let container = Self.carNeedingEngine()
        container.decorate(Engine.self) { @MainActor _, _ in throw Boom() }

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Engine.self)
        }

        #expect(error.thrownByDecorator)
        #expect(error.underlyingError is Boom)
    }

    @Test func verificationReportsTheDecoratorThatThrew() throws {
        let container = Self.carNeedingEngine()
        container.decorate(Engine.self) { _, _ in throw Boom() }

        let problem = try #require(container.verificationReport().problems.first)

        #expect(problem.kind == .buildFailed)
        #expect(problem.service == "Engine")
        #expect(problem.message == "A decorator of Engine threw (its factory had returned): boom")
        #expect(problem.hint.hasPrefix("Fix what the decorator of Engine throws for"))
        #expect(problem.underlyingError is Boom)
    }

    @Test func asyncVerificationReportsTheAsyncDecoratorThatThrew() async throws {
        let container = Self.carNeedingEngine()
        container.decorate(Engine.self) { (_: AsyncResolver, _: Engine) async throws -> Engine in throw Boom() }

        let problem = try #require(await container.async.verificationReport().problems.first)

        #expect(problem.kind == .buildFailed)
        #expect(problem.message.hasPrefix("A decorator of Engine threw"))
        #expect(problem.hint.hasPrefix("Fix what the decorator of Engine throws for"))
        #expect(problem.underlyingError is Boom)
    }
}
