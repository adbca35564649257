import Foundation
import Testing
import Weft
import WeftTesting

/// `expectValid(_:)`: the one-line check of a whole container in a Swift Testing test.
@Suite struct ExpectValidTests {
    final class Engine {}

    final class Car {
        init(engine: Engine) {}
    }

    @Test func validContainerRecordsNoIssue() {
        let container = Container()
        container.autoregister(Engine.self, initializer: Engine.init)
        container.autoregister(Car.self, initializer: Car.init)

        let report = expectValid(container)
        #expect(report.isValid)
    }

    @Test func brokenContainerRecordsOneIssueWithTheWholeReport() {
        let container = Container()
        container.autoregister(Car.self, initializer: Car.init)
        container.register(Engine.self, name: "v8") { _ in Engine() }.inObjectScope(.weak)
        container.register(Car.self, name: "singleton") { r in Car(engine: try r.require(name: "v8")) }
            .inObjectScope(.container)

        withKnownIssue {
            expectValid(container)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("Weft verification failed: 2 problems in 3 registrations")
                && text.contains("[missing-registration] Car needs Engine, which is not registered.")
                && text.contains("[captive-dependency] Car[\"singleton\"] (.container) keeps Engine[\"v8\"] (.weak)")
        }
    }

    @Test func strictModeReportsShortLivedDependenciesOfSingletons() {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }.inObjectScope(.transient)
        container.register(Car.self) { r in Car(engine: try r.require()) }.inObjectScope(.container)

        expectValid(container)
        withKnownIssue {
            expectValid(container, strict: true)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("Weft verification failed (strict): 1 problem in 2 registrations")
                && text.contains("[captive-dependency] Car (.container) keeps one Engine (.transient)")
        }
    }
}
