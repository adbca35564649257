import Testing
import Weft

/// A panel made on the main actor.
@MainActor final class SettingsPanel {
    let title: String

    init(title: String) {
        self.title = title
    }
}

/// Collection elements whose factories are `@MainActor`, as `register` takes them: made on the main actor, from
/// main-actor code or from async code, and `notOnMainActor` (never a crash) when resolved elsewhere.
@Suite struct MainActorCollectionTests {
    @Test @MainActor func mainActorCodeResolvesAListWithAMainActorElement() throws {
        let container = Container()
        container.contribute(to: [SettingsPanel].self) { @MainActor _ in SettingsPanel(title: "general") }
        container.contribute(to: [SettingsPanel].self) { @MainActor _ in SettingsPanel(title: "privacy") }

        #expect(try container.require([SettingsPanel].self).map(\.title) == ["general", "privacy"])
    }

    @Test func asyncCodeOffTheMainActorGetsTheElementMadeOnTheMainActor() async throws {
        let container = Container()
        container.contribute(to: [SettingsPanel].self) { @MainActor _ in
            MainActor.assertIsolated()
            return SettingsPanel(title: "general")
        }

        let panels = try await container.async.require([SettingsPanel].self)
        #expect(panels.first?.title == "general")
    }

    @Test func resolvingAMainActorElementOnAnotherThreadThrowsNotOnMainActor() {
        let container = Container()
        container.contribute(to: [SettingsPanel].self) { @MainActor _ in SettingsPanel(title: "general") }
        let errors = Collected<ResolutionError.Reason>()

        #expect(
            runOnThread {
                do {
                    _ = try container.require([SettingsPanel].self)
                } catch {
                    if let error = error as? ResolutionError { errors.append(error.reason) }
                }
            }.wait(seconds: 10))

        #expect(errors.values == [.notOnMainActor])
    }

    @Test @MainActor func mainActorCodeResolvesAMapWithAMainActorElement() throws {
        let container = Container()
        container.contribute(to: [String: SettingsPanel].self, key: "general") { @MainActor _ in
            SettingsPanel(title: "general")
        }
        .inObjectScope(.container)

        let panels = try container.require([String: SettingsPanel].self)
        #expect(panels["general"]?.title == "general")
        #expect(panels["general"] === (try container.require([String: SettingsPanel].self))["general"])
    }
}
