import Foundation
import Testing
import Weft

private final class RecordProbeMissing {}

private final class RecordProbeOwner {
    init(missing: RecordProbeMissing) {}
}

private final class RecordProbeJournal: Teardown {
    func tearDown() throws { throw RecordProbeFailure.flushFailed }
}

private enum RecordProbeFailure: Error {
    case flushFailed
    case requestFailed
}

/// `Container.logHandler` receives what Weft logs as a `LogRecord` whose parts (event, service, name, path,
/// reason, error) a structured logger can use. Serialized: the handler is a global.
@Suite(.serialized) struct LogRecordTests {
    @Test func aFailedResolveGivesARecordWithItsServiceNamePathAndReason() throws {
        let container = Container()
        container.register(RecordProbeOwner.self, name: "main") { r in
            RecordProbeOwner(missing: try r.require(RecordProbeMissing.self))
        }
        let records = Collected<LogRecord>()
        let strings = Collected<String>()

        withLoggingFunction(
            { strings.append($0) },
            {
                let saved = Container.logHandler
                defer { Container.logHandler = saved }
                Container.logHandler = { records.append($0) }
                #expect(container.resolve(RecordProbeOwner.self, name: "main") == nil)
            })

        let record = try #require(records.values.first { $0.message.contains("RecordProbeMissing") })
        #expect(record.event == .resolutionFailed)
        #expect(record.service == "RecordProbeMissing")
        #expect(record.path == ["RecordProbeOwner[\"main\"]", "RecordProbeMissing"])
        #expect(record.reason == "Weft.missingRegistration")
        #expect((record.error as? ResolutionError)?.reason == .missingRegistration)
        #expect(record.headline == "[Weft.missingRegistration] No registration for RecordProbeMissing.")
        // A handler of one's own replaces the route to the logging function.
        #expect(!strings.values.contains { $0.contains("RecordProbeMissing") })
    }

    @Test func theDefaultHandlerPassesEachMessageToTheLoggingFunction() {
        let container = Container()
        let strings = Collected<String>()

        withLoggingFunction(
            { strings.append($0) },
            {
                let saved = Container.logHandler
                defer { Container.logHandler = saved }
                Container.logHandler = Container.defaultLogHandler
                _ = container.resolve(RecordProbeMissing.self)
            })

        #expect(
            strings.values.contains {
                $0.hasPrefix("[Weft.missingRegistration] No registration for RecordProbeMissing.")
            })
    }

    @Test func aTeardownThatFailsAfterTheScopesWorkFailedIsRecordedWithItsService() async throws {
        let container = Container()
        container.register(RecordProbeJournal.self) { _ in RecordProbeJournal() }.inObjectScope(.scoped)

        let records = await recordsLogged(containing: "RecordProbeJournal") {
            await #expect(throws: RecordProbeFailure.requestFailed) {
                try await container.withScope { scope in
                    _ = try scope.require(RecordProbeJournal.self)
                    throw RecordProbeFailure.requestFailed
                }
            }
        }

        #expect(records.count == 1)
        #expect(records.first?.event == .teardownFailed)
        #expect(records.first?.service == "RecordProbeJournal")
        #expect(records.first?.reason == "Weft.teardownFailed")
        #expect((records.first?.error as? TeardownError)?.failures.count == 1)
    }

    @Test func aScopeReleasedWithoutEndIsRecordedWithTheServicesItDidNotTearDown() async throws {
        let container = Container()
        container.register(RecordProbeJournal.self) { _ in RecordProbeJournal() }.inObjectScope(.scoped)

        let records = try await recordsLogged(containing: "RecordProbeJournal") {
            try {
                let scope = container.makeScope()
                _ = try scope.require(RecordProbeJournal.self)
            }()
        }

        #expect(records.map(\.event) == [.notTornDown])
        #expect(records.first?.service == "RecordProbeJournal")
        #expect(records.first?.reason == "Weft.notTornDown")
        #expect(records.first?.error == nil)
    }
}
