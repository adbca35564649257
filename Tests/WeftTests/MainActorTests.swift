import Dispatch
import Testing
import Weft
import WeftTesting

/// A service built by a `@MainActor` factory.
@MainActor final class ProfileModel {
    let api: ProfileAPI
    var title = "Profile"

    init(api: ProfileAPI) {
        self.api = api
    }
}

final class ProfileAPI: Sendable {}

/// A non-isolated service that needs a main-actor one.
final class ProfileScreen: Sendable {
    let model: ProfileModel

    init(model: ProfileModel) {
        self.model = model
    }
}

/// A main-actor object that injects a main-actor service.
@MainActor final class ProfileController {
    @Injected var model: ProfileModel
}

/// `@MainActor` factories: registered and resolved from main-actor code without casts, and a
/// `notOnMainActor` error (never a crash) when resolved on another thread.
@Suite struct MainActorTests {
    /// A container with `ProfileAPI`, `ProfileModel` (main actor, in `scope`) and `ProfileScreen`.
    private static func container(scope: ObjectScope = .graph, modelCalls: Counter = Counter()) -> Container {
        let container = Container()
        container.register(ProfileAPI.self) { _ in ProfileAPI() }
        container.register(ProfileModel.self) { @MainActor r in
            modelCalls.increment()
            return ProfileModel(api: try r.require())
        }
        .inObjectScope(scope)
        container.register(ProfileScreen.self) { r in ProfileScreen(model: try r.require()) }
        return container
    }

    /// Runs `body` on a new thread (not the main one) and waits for it.
    private static func onBackgroundThread(_ body: @escaping @Sendable () -> Void) {
        #expect(runOnThread(body).wait(seconds: 10))
    }

    @Test @MainActor func mainActorCodeRegistersAndResolvesAMainActorClass() throws {
        let calls = Counter()
        let container = Self.container(modelCalls: calls)

        let model = try container.require(ProfileModel.self)

        #expect(calls.value == 1, "the @MainActor factory did not run")
        #expect(model.title == "Profile")
        #expect(container.resolve(ProfileModel.self) !== model)
        #expect(calls.value == 2)
    }

    @Test @MainActor func inferredRegistrationAcceptsAMainActorFactory() throws {
        let container = Container()
        container.register { ProfileAPI() }
        container.register { @MainActor r in ProfileModel(api: try r.require()) }

        let model: ProfileModel = try container.require()

        #expect(model.title == "Profile")
    }

    @Test @MainActor func nonIsolatedFactoriesResolvedOnTheMainActorGetMainActorServices() throws {
        let container = Self.container()

        let screen = try container.require(ProfileScreen.self)

        #expect(screen.model.title == "Profile")
    }

    @Test(
        .isolatedContainer { c in
            c.register { ProfileAPI() }
            c.register { @MainActor r in ProfileModel(api: try r.require()) }
        })
    @MainActor func mainActorObjectsInjectMainActorServices() {
        let controller = ProfileController()

        #expect(controller.model.title == "Profile")
    }

    @Test func requireOnAnotherThreadThrowsNotOnMainActorWithoutRunningTheFactory() {
        let calls = Counter()
        let container = Self.container(modelCalls: calls)
        let errors = Collected<ResolutionError>()

        Self.onBackgroundThread {
            do {
                _ = try container.require(ProfileScreen.self)
            } catch {
                if let error = error as? ResolutionError { errors.append(error) }
            }
        }

        #expect(calls.value == 0)
        #expect(errors.values.count == 1)
        let error = errors.values.first
        #expect(error?.reason == .notOnMainActor)
        #expect(error?.path == ["ProfileScreen", "ProfileModel"])
        #expect(
            error?.description == """
                [Weft.notOnMainActor] The factory of ProfileModel is @MainActor, but it was resolved off the main \
                actor, where it cannot run.
                Resolve it from main-actor code (a @MainActor function, or inside `await MainActor.run { }`), \
                or inject Lazy<ProfileModel> and read it on the main actor.
                Resolution path: ProfileScreen -> ProfileModel
                """
        )
    }

    @Test func resolveOnADispatchQueueReturnsNilAndLogsTheReason() {
        let container = Self.container()
        let resolved = Collected<Bool>()

        let messages = messagesLogged(containing: "[Weft.notOnMainActor] The factory of ProfileModel") {
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                resolved.append(container.resolve(ProfileModel.self) != nil)
                done.signal()
            }
            done.wait()
        }

        #expect(resolved.values == [false])
        #expect(messages.count == 1)
    }

    @Test func aSingletonMadeOnTheMainActorIsReturnedOnOtherThreads() async {
        let calls = Counter()
        let container = Self.container(scope: .container, modelCalls: calls)
        let made = await MainActor.run { container.resolve(ProfileModel.self) }
        let fromThread = Collected<ProfileModel?>()

        Self.onBackgroundThread { fromThread.append(container.resolve(ProfileModel.self)) }

        #expect(made != nil)
        #expect(fromThread.values.first.flatMap { $0 } === made)
        #expect(calls.value == 1)
    }

    @Test func lazyResolvedOffTheMainActorMakesItsInstanceOnTheMainActor() async throws {
        let container = Self.container()
        let lazy = Collected<Lazy<ProfileModel>>()
        Self.onBackgroundThread {
            if let made = container.resolve(Lazy<ProfileModel>.self) { lazy.append(made) }
        }
        let model = try #require(lazy.values.first)

        let title = try await MainActor.run { try model.get().title }

        #expect(title == "Profile")
    }
}
