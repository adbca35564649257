import Testing
import Weft

/// Decorators whose closures are `@MainActor`, as `register` takes factories: run on the main actor, from
/// main-actor code or from async code, and `notOnMainActor` (never a crash) when the service is made elsewhere.
@Suite struct MainActorDecoratorTests {
    final class Trail: Sendable {
        let tags: [String]
        init(_ tags: [String]) { self.tags = tags }
    }

    /// Adds `tag` to what it wraps; must be made on the main actor.
    @MainActor static func framed(_ inner: Trail, _ tag: String) -> Trail {
        MainActor.assertIsolated()
        return Trail(inner.tags + [tag])
    }

    @Test @MainActor func mainActorCodeResolvesAServiceWithAMainActorDecorator() throws {
        let container = Container()
        container.register(Trail.self) { _ in Trail(["made"]) }
        container.decorate(Trail.self) { @MainActor _, inner in Self.framed(inner, "main") }
        container.decorate(Trail.self) { _, inner in Trail(inner.tags + ["plain"]) }

        #expect(try container.require(Trail.self).tags == ["made", "main", "plain"])
    }

    @Test @MainActor func mainActorDecoratorWithTheTypeInferredAppliesToItsType() throws {
        let container = Container()
        container.register(Trail.self, name: "n") { _ in Trail(["made"]) }
        container.decorate(name: "n") { @MainActor (_, inner: Trail) in Self.framed(inner, "main") }

        #expect(try container.require(Trail.self, name: "n").tags == ["made", "main"])
    }

    @Test func asyncCodeOffTheMainActorGetsTheServiceDecoratedOnTheMainActor() async throws {
        let container = Container()
        container.register(Trail.self) { _ in Trail(["made"]) }
        container.decorate(Trail.self) { @MainActor _, inner in Self.framed(inner, "main") }

        #expect(try await container.async.require(Trail.self).tags == ["made", "main"])
    }

    @Test func asyncRegistrationIsDecoratedOnTheMainActorFromAsyncCode() async throws {
        let container = Container()
        container.register(Trail.self) { _ in
            await Task.yield()
            return Trail(["async"])
        }
        container.decorate(Trail.self) { @MainActor _, inner in Self.framed(inner, "main") }

        #expect(try await container.async.require(Trail.self).tags == ["async", "main"])
    }

    @Test func registrationWithArgumentsIsDecoratedOnTheMainActorFromAsyncCode() async throws {
        let container = Container()
        container.register(Trail.self) { (_, tag: String) in Trail([tag]) }
        container.decorate(Trail.self) { @MainActor _, inner in Self.framed(inner, "main") }

        #expect(try await container.async.require(Trail.self, arguments: "arg").tags == ["arg", "main"])
    }

    @Test func resolvingOnAnotherThreadThrowsNotOnMainActor() {
        let container = Container()
        container.register(Trail.self) { _ in Trail(["made"]) }
        container.decorate(Trail.self) { @MainActor _, inner in Self.framed(inner, "main") }
        let errors = Collected<ResolutionError.Reason>()
        let resolved = Collected<Bool>()

        #expect(
            runOnThread {
                resolved.append(container.resolve(Trail.self) != nil)
                do {
                    _ = try container.require(Trail.self)
                } catch {
                    if let error = error as? ResolutionError { errors.append(error.reason) }
                }
            }.wait(seconds: 10))

        #expect(resolved.values == [false])
        #expect(errors.values == [.notOnMainActor])
    }

    @Test func singletonDecoratedOnTheMainActorIsReturnedOnAnotherThread() async throws {
        let container = Container()
        container.register(Trail.self) { _ in Trail(["made"]) }.inObjectScope(.container)
        container.decorate(Trail.self) { @MainActor _, inner in Self.framed(inner, "main") }
        let made = try await container.async.require(Trail.self)
        let elsewhere = Collected<Trail>()

        let resolving = runOnThread {
            if let trail = container.resolve(Trail.self) { elsewhere.append(trail) }
        }
        #expect(resolving.wait(seconds: 10))

        #expect(elsewhere.values.count == 1)
        #expect(elsewhere.values.first === made)
        #expect(made.tags == ["made", "main"])
    }
}
