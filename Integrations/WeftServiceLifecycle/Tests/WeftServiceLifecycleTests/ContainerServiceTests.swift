import Foundation
import Logging
import ServiceLifecycle
import Testing
import Weft
import WeftServiceLifecycle

/// `ContainerService` ends a container when its `ServiceGroup` shuts down: singletons torn down newest first,
/// after the services listed after it stopped, async teardowns awaited, each within its bound, failures logged
/// and reported.
@Suite struct ContainerServiceTests {
    private func container(log: EventLog, failing: Set<String> = [], poolSeconds: Double = 0.05) -> Container {
        let container = Container()
        for name in ["first", "second", "third"] {
            container.register(Journal.self, name: name) { _ in
                Journal(name, log: log, fails: failing.contains(name))
            }
            .inObjectScope(.container)
        }
        container.register(Pool.self) { _ in Pool(log: log, seconds: poolSeconds) }.inObjectScope(.container)
        return container
    }

    /// Runs a group of the container's service and a worker that uses `uses`, shuts it down gracefully once the
    /// worker started, and returns what the group's run threw.
    private func runAndShutDown(
        _ container: Container,
        uses: [String],
        log: EventLog,
        teardownTimeout: Double = 5,
        logger: Logger
    ) async -> (any Error)? {
        let group = ServiceGroup(
            services: [
                ContainerService(container, teardownTimeout: teardownTimeout, logger: logger),
                Worker(container: container, uses: uses, log: log),
            ],
            logger: logger
        )
        let running = Task { try await group.run() }
        #expect(await eventually { log.events.contains("worker started") })
        await group.triggerGracefulShutdown()
        do {
            try await running.value
            return nil
        } catch {
            return error
        }
    }

    @Test func gracefulShutdownTearsDownSingletonsNewestFirstAfterTheOtherServicesStopped() async {
        let log = EventLog()
        let logs = CollectingLogHandler.Store()

        let error = await runAndShutDown(
            container(log: log), uses: ["first", "pool", "second", "third"], log: log,
            logger: .collecting(into: logs))

        #expect(error == nil)
        #expect(
            log.events == [
                "worker started", "worker stopped", "tore down third", "tore down second", "tore down pool",
                "tore down first",
            ])
        #expect(!logs.entries.contains { $0.level >= .error })
    }

    @Test func onlyTheSingletonsThatWereMadeAreTornDown() async {
        let log = EventLog()

        let error = await runAndShutDown(
            container(log: log), uses: ["second"], log: log, logger: .collecting(into: .init()))

        #expect(error == nil)
        #expect(log.events == ["worker started", "worker stopped", "tore down second"])
    }

    @Test func aFailingTeardownIsLoggedAndThrownAndTheOthersStillRun() async throws {
        let log = EventLog()
        let logs = CollectingLogHandler.Store()

        let error = await runAndShutDown(
            container(log: log, failing: ["second"]), uses: ["first", "second", "third"], log: log,
            logger: .collecting(into: logs))

        let teardown = try #require(error as? TeardownError)
        #expect(teardown.failures.map(\.service) == ["Journal"])
        #expect(teardown.failures.first?.error is JournalFailure)
        #expect(log.events.suffix(3) == ["tore down third", "tore down second", "tore down first"])
        let entry = try #require(logs.entries.first { $0.message == "Teardown failed" })
        #expect(entry.level == .error)
        #expect(entry.metadata["weft.service"] == "Journal")
        #expect(entry.metadata["weft.error"] == "flushFailed")
    }

    @Test func aTeardownThatOverrunsItsBoundIsReportedWithoutHoldingUpTheShutdown() async throws {
        let log = EventLog()
        let logs = CollectingLogHandler.Store()
        let started = Date()

        let error = await runAndShutDown(
            container(log: log, poolSeconds: 30), uses: ["first", "pool"], log: log, teardownTimeout: 0.2,
            logger: .collecting(into: logs))

        #expect(Date().timeIntervalSince(started) < 10)
        let teardown = try #require(error as? TeardownError)
        #expect(teardown.failures.map(\.service) == ["Pool"])
        #expect(teardown.failures.first?.error is TeardownInterruption)
        #expect(log.events.last == "tore down first")
        #expect(logs.entries.contains { $0.metadata["weft.service"] == "Pool" && $0.level == .error })
    }

    @Test func aCancelledGroupStillTearsDownTheContainer() async {
        let log = EventLog()
        let container = container(log: log)
        let group = ServiceGroup(
            services: [
                ContainerService(container, logger: .collecting(into: .init())),
                Worker(container: container, uses: ["first", "pool"], log: log),
            ],
            logger: .collecting(into: .init())
        )
        let running = Task { try await group.run() }
        #expect(await eventually { log.events.contains("worker started") })

        running.cancel()
        _ = try? await running.value

        #expect(log.events.contains("tore down pool"))
        #expect(log.events.last == "tore down first")
    }

    @Test func theContainerCanBeResolvedAgainAfterItsServiceEnded() async throws {
        let log = EventLog()
        let container = container(log: log)

        _ = await runAndShutDown(container, uses: ["first"], log: log, logger: .collecting(into: .init()))

        // Ending a container releases its singletons; a later resolve makes a new one.
        #expect(try container.require(Journal.self, name: "first").name == "first")
    }
}
