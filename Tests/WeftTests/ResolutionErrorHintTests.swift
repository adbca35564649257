import Testing
import Weft

/// Messages for failures whose first wording named the wrong thing or gave a hint that did not apply: a wrapper
/// around a missing service, a `.scoped` registration below the scope, a main-actor element of a collection.
/// Compared exactly, like ``ResolutionErrorTextTests``.
@Suite struct ResolutionErrorHintTests {
    final class Cat {}

    final class Owner {
        init(cat: Provider<Cat>) {}
    }

    final class Work: Sendable {}

    @Test func aProviderOfAMissingServiceNamesTheServiceAsMissing() throws {
        let container = Container()
        container.register(Cat.self, name: "mimi") { _ in Cat() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Provider<Cat>.self) }

        #expect(error.reason == .missingRegistration)
        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Cat (requested as Provider<Cat>).
                Resolution path: Provider<Cat> -> Cat
                Registered instead: Cat named "mimi"
                """
        )
    }

    @Test func aProviderOfAMissingServiceAskedInAFactoryShowsTheWrapperOnThePath() throws {
        let container = Container()
        container.register(Owner.self) { r in Owner(cat: try r.require(Provider<Cat>.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Owner.self) }

        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Cat (requested as Provider<Cat>).
                Resolution path: Owner -> Provider<Cat> -> Cat
                """
        )
    }

    @Test func aNamedProviderOfAMissingServiceSaysTheNameOnce() throws {
        let container = Container()

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Provider<Cat>.self, name: "mimi")
        }

        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Cat named "mimi" (requested as Provider<Cat>).
                Resolution path: Provider<Cat>["mimi"] -> Cat["mimi"]
                """
        )
    }

    @Test func aLazyInjectedLazyOfAMissingServiceNamesTheService() throws {
        final class Holder {
            @LazyInjected var cat: Lazy<Cat>
            init(container: Container) { _cat = LazyInjected(container: container) }
        }
        let holder = Holder(container: Container())

        let error = try #require(throws: ResolutionError.self) { try holder.$cat.get() }

        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Cat (requested as Lazy<Cat>).
                Resolution path: Lazy<Cat> -> Cat
                """
        )
    }

    @Test func aScopedRegistrationInAPlainChildOfAScopeSaysItIsBelowTheScope() throws {
        let scope = Container().makeScope()
        let child = Container(parent: scope)
        child.register(Work.self) { _ in Work() }.inObjectScope(.scoped)

        let error = try #require(throws: ResolutionError.self) { try child.require(Work.self) }

        #expect(error.reason == .outsideScope)
        #expect(
            error.description == """
                [Weft.outsideScope] Work is .scoped (one instance per scope), and it is registered in a child \
                container made with Container(parent:) below the scope it was resolved through: a scope keeps \
                instances only of registrations made in it or in a container above it.
                Register Work in the scope or in a container above it, or make the child with \
                `scope.makeScope()` (a nested scope, which keeps its own .scoped instances).
                """
        )
    }

    @Test func aMainActorElementResolvedOffTheMainActorSuggestsResolvingTheCollectionFromMainActorOrAsyncCode() {
        let container = Container()
        container.contribute(to: [SettingsPanel].self) { @MainActor _ in SettingsPanel(title: "general") }
        let errors = Collected<String>()

        let thread = runOnThread {
            do { _ = try container.require([SettingsPanel].self) } catch { errors.append("\(error)") }
        }

        #expect(thread.wait(seconds: 10))
        #expect(
            errors.values == [
                """
                [Weft.notOnMainActor] The factory of the 1st element contributed to Array<SettingsPanel> is \
                @MainActor, but it was resolved off the main actor, where it cannot run.
                Resolve Array<SettingsPanel> from main-actor code (a @MainActor function, or inside \
                `await MainActor.run { }`), or from async code: `try await container.async.require(\
                Array<SettingsPanel>.self)` makes the element on the main actor.
                Resolution path: Array<SettingsPanel> -> Array<SettingsPanel>#1
                """
            ]
        )
    }
}
