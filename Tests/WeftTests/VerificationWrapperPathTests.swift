import Testing
import Weft

/// A missing service asked for through `Lazy` or `Provider`: the path verification reports is the path of the
/// error resolving the service that asks, wrapper included.
@Suite struct VerificationWrapperPathTests {
    final class Engine: Sendable {}

    final class Car: Sendable {
        init(engine: Any) {}
    }

    @Test func aMissingServiceBehindLazyHasTheResolutionPathInTheReport() throws {
        let container = Container()
        container.register(Car.self) { r in Car(engine: try r.require(Lazy<Engine>.self, name: "v8")) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Car.self) }
        let problem = try #require(container.verificationReport().problems.first)

        #expect(error.path == ["Car", "Lazy<Engine>[\"v8\"]", "Engine[\"v8\"]"])
        #expect(problem.path == error.path)
        #expect(problem.service == "Engine[\"v8\"]")
    }

    @Test func aMissingServiceBehindProviderHasTheResolutionPathInTheAsyncReport() async throws {
        let container = Container()
        container.register(Car.self) { r in Car(engine: try r.require(Provider<Engine>.self)) }

        let error = try await #require(throws: ResolutionError.self) { try await container.async.require(Car.self) }
        let problem = try #require(await container.async.verificationReport().problems.first)

        #expect(problem.path == error.path)
        #expect(problem.path == ["Car", "Provider<Engine>", "Engine"])
    }

    final class Garage: Sendable {
        init(engine: Provider<Engine>) {}
    }

    @Test func aMissingServiceBehindAnAutoregisteredProviderHasTheResolutionPathInTheReport() throws {
        let container = Container()
        container.autoregister(Garage.self, initializer: Garage.init)

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }
        let problem = try #require(container.verificationReport().problems.first)

        #expect(problem.path == error.path)
    }
}
