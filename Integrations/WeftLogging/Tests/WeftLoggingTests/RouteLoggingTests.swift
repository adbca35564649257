import Foundation
import Logging
import Testing
import Weft
import WeftLogging

private final class RoutedMissingService {}

private final class RoutedOwner {
    init(missing: RoutedMissingService) {}
}

private final class RoutedJournal: Teardown {
    func tearDown() throws { throw RoutedFailure.flushFailed }
}

private enum RoutedFailure: Error {
    case flushFailed
    case requestFailed
}

/// `Container.routeLogging(to:)` sends what Weft logs to a swift-log `Logger` as structured entries.
/// Serialized: the log handler is a global, put back after each test.
@Suite(.serialized) struct RouteLoggingTests {
    /// Routes Weft's logging to a collecting logger while `body` runs, then puts the previous handler back.
    private func entries(
        level: Logger.Level = .trace,
        levels: (@Sendable (LogRecord.Event) -> Logger.Level)? = nil,
        during body: () async throws -> Void
    ) async rethrows -> [CollectingLogHandler.Entry] {
        let store = CollectingLogHandler.Store()
        let saved = Container.logHandler
        defer { Container.logHandler = saved }
        if let levels {
            Container.routeLogging(to: .collecting(into: store, level: level), level: levels)
        } else {
            Container.routeLogging(to: .collecting(into: store, level: level))
        }
        try await body()
        return store.entries
    }

    @Test func aFailedResolveIsAWarningWhoseMetadataNamesTheServiceNamePathAndReason() async throws {
        let container = Container()
        container.register(RoutedOwner.self, name: "main") { r in RoutedOwner(missing: try r.require()) }

        let logged = await entries {
            #expect(container.resolve(RoutedOwner.self, name: "main") == nil)
        }

        let entry = try #require(logged.first { $0.message.contains("RoutedMissingService") })
        #expect(entry.level == .warning)
        #expect(entry.message == "[Weft.missingRegistration] No registration for RoutedMissingService.")
        #expect(entry.metadata["weft.event"] == "resolutionFailed")
        #expect(entry.metadata["weft.service"] == "RoutedMissingService")
        #expect(entry.metadata["weft.path"] == "RoutedOwner[\"main\"] -> RoutedMissingService")
        #expect(entry.metadata["weft.reason"] == "Weft.missingRegistration")
        #expect(entry.metadata["weft.details"] != nil)
    }

    @Test func aFailedNamedResolveCarriesTheNameInItsMetadata() async throws {
        let container = Container()

        let logged = await entries {
            _ = container.resolve(RoutedMissingService.self, name: "primary")
        }

        let entry = try #require(logged.first { $0.message.contains("RoutedMissingService") })
        #expect(entry.metadata["weft.name"] == "primary")
    }

    @Test func aTeardownThatFailsWhereNoCallerCanBeToldIsAnErrorNamingTheService() async throws {
        let container = Container()
        container.register(RoutedJournal.self) { _ in RoutedJournal() }.inObjectScope(.scoped)

        let logged = await entries {
            await #expect(throws: RoutedFailure.requestFailed) {
                try await container.withScope { scope in
                    _ = try scope.require(RoutedJournal.self)
                    throw RoutedFailure.requestFailed
                }
            }
        }

        let entry = try #require(logged.first { $0.metadata["weft.service"] == "RoutedJournal" })
        #expect(entry.level == .error)
        #expect(entry.metadata["weft.event"] == "teardownFailed")
        #expect(entry.metadata["weft.reason"] == "Weft.teardownFailed")
    }

    @Test func theLoggersLevelFiltersWeftsEntries() async {
        let container = Container()

        let logged = await entries(level: .error) {
            _ = container.resolve(RoutedMissingService.self)
        }

        #expect(!logged.contains { $0.message.contains("RoutedMissingService") })
    }

    @Test func eachKindOfRecordCanBeGivenItsOwnLevel() async throws {
        let container = Container()

        let levels: @Sendable (LogRecord.Event) -> Logger.Level = { $0 == .resolutionFailed ? .debug : .critical }
        let logged = await entries(levels: levels) {
            _ = container.resolve(RoutedMissingService.self)
        }

        let entry = try #require(logged.first { $0.message.contains("RoutedMissingService") })
        #expect(entry.level == .debug)
    }

    @Test func routingReplacesTheStringLoggingFunction() async {
        let container = Container()
        let strings = Strings()
        let savedFunction = Container.loggingFunction
        defer { Container.loggingFunction = savedFunction }
        Container.loggingFunction = { strings.append($0) }

        _ = await entries {
            _ = container.resolve(RoutedMissingService.self)
        }

        #expect(!strings.values.contains { $0.contains("RoutedMissingService") })
    }
}

/// Strings collected from any thread.
private final class Strings: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    var values: [String] { lock.withLock { items } }

    func append(_ value: String) { lock.withLock { items.append(value) } }
}
