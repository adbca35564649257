import Foundation
import Testing
import Weft

/// `Container.loggingFunction` receives the text of every failed `resolve`.
///
/// The logging function is a global: the tests of this suite run one at a time and put back the original
/// function. Tests in other files may resolve at the same time, so each test only looks at messages that
/// mention the types declared here (names no other file uses).
@Suite(.serialized) struct LoggingTests {
    final class LoggingProbeMissingService {}
    final class LoggingProbePresentService {}

    final class LoggingProbeOwner {
        var optional: LoggingProbeMissingService?
    }

    final class LoggingProbeCycleA {
        init(b: LoggingProbeCycleB) {}
    }

    final class LoggingProbeCycleB {
        init(a: LoggingProbeCycleA) {}
    }

    final class LoggingProbeBrokenService {}

    /// Installs a logging function that collects messages mentioning `marker`, runs `body`, restores the
    /// original function and returns the messages.
    private func messages(mentioning marker: String, during body: () throws -> Void) rethrows -> [String] {
        try messagesLogged(containing: marker, while: body)
    }

    @Test func failedResolveSendsItsMessageToTheLoggingFunction() {
        let container = Container()

        let logged = messages(mentioning: "LoggingProbeMissingService") {
            #expect(container.resolve(LoggingProbeMissingService.self) == nil)
        }

        #expect(logged.count == 1)
        let headline = "[Weft.missingRegistration] No registration for LoggingProbeMissingService."
        #expect(logged.first?.hasPrefix(headline) == true)
    }

    @Test func loggedMessageIsTheDescriptionOfTheErrorRequireThrows() throws {
        let container = Container()
        container.register(LoggingProbeMissingService.self, name: "other") { _ in LoggingProbeMissingService() }
        let error = try #require(throws: ResolutionError.self) {
            try container.require(LoggingProbeMissingService.self, name: "wanted")
        }

        let logged = messages(mentioning: "LoggingProbeMissingService") {
            _ = container.resolve(LoggingProbeMissingService.self, name: "wanted")
        }

        #expect(logged == [error.description])
        #expect(error.description.contains("\"other\""))
    }

    @Test func successfulResolveLogsNothing() {
        let container = Container()
        container.register(LoggingProbePresentService.self) { _ in LoggingProbePresentService() }

        let logged = messages(mentioning: "LoggingProbePresentService") {
            #expect(container.resolve(LoggingProbePresentService.self) != nil)
        }

        #expect(logged.isEmpty)
    }

    @Test func requireThrowsInsteadOfLogging() {
        let container = Container()

        let logged = messages(mentioning: "LoggingProbeMissingService") {
            #expect(throws: ResolutionError.self) {
                try container.require(LoggingProbeMissingService.self)
            }
        }

        #expect(logged.isEmpty)
    }

    @Test func failedOptionalDependencyInsideAFactoryIsLoggedWithItsPath() throws {
        let container = Container()
        container.register(LoggingProbeOwner.self) { r in
            let owner = LoggingProbeOwner()
            owner.optional = r.resolve(LoggingProbeMissingService.self)
            return owner
        }

        let logged = try messages(mentioning: "LoggingProbeMissingService") {
            let owner = try #require(container.resolve(LoggingProbeOwner.self))
            #expect(owner.optional == nil)
        }

        #expect(logged.count == 1)
        #expect(logged.first?.contains("LoggingProbeOwner -> LoggingProbeMissingService") == true)
    }

    @Test func circularDependencyIsLoggedWithTheCycle() {
        let container = Container()
        container.register(LoggingProbeCycleA.self) { r in
            LoggingProbeCycleA(b: try r.require(LoggingProbeCycleB.self))
        }
        container.register(LoggingProbeCycleB.self) { r in
            LoggingProbeCycleB(a: try r.require(LoggingProbeCycleA.self))
        }

        let logged = messages(mentioning: "LoggingProbeCycle") {
            #expect(container.resolve(LoggingProbeCycleA.self) == nil)
        }

        #expect(logged.count == 1)
        #expect(logged.first?.hasPrefix("[Weft.circularDependency]") == true)
        #expect(logged.first?.contains("LoggingProbeCycleA -> LoggingProbeCycleB -> LoggingProbeCycleA") == true)
    }

    @Test func throwingFactoryIsLoggedWithTheThrownError() {
        let container = Container()
        container.register(LoggingProbeBrokenService.self) { _ in throw CoreTestError.other("probe broke") }

        let logged = messages(mentioning: "LoggingProbeBrokenService") {
            #expect(container.resolve(LoggingProbeBrokenService.self) == nil)
        }

        #expect(logged.count == 1)
        #expect(logged.first?.hasPrefix("[Weft.factoryFailed] The factory of LoggingProbeBrokenService threw:") == true)
        #expect(logged.first?.contains("probe broke") == true)
    }

    @Test func nilLoggingFunctionSilencesFailuresWithoutBreakingResolve() {
        withLoggingFunction(nil) {
            #expect(Container.loggingFunction == nil)
            #expect(Container().resolve(LoggingProbeMissingService.self) == nil)
        }
    }
}
