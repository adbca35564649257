import Foundation
import Testing
import Weft

/// A database opened by an async factory and closed by an async teardown.
private actor VerifiedDatabase: AsyncTeardown {
    let log: Collected<String>
    init(log: Collected<String>) { self.log = log }
    func tearDown() async throws { log.append("database closed") }
}

/// The unit of work of one request.
private final class VerifiedUnitOfWork: Teardown, Sendable {
    let database: VerifiedDatabase
    let log: Collected<String>
    init(database: VerifiedDatabase, log: Collected<String>) {
        self.database = database
        self.log = log
    }
    func tearDown() throws { log.append("unit of work ended") }
}

/// A request handler, made anew for each use.
private final class VerifiedHandler: Sendable {
    let work: VerifiedUnitOfWork
    init(work: VerifiedUnitOfWork) { self.work = work }
}

/// A singleton that keeps the unit of work it was made with.
private final class VerifiedCache: Sendable {
    let work: VerifiedUnitOfWork
    init(work: VerifiedUnitOfWork) { self.work = work }
}

/// Something that closes, whatever the instance is.
private protocol Closable: AnyObject {}

/// A closable file whose teardown closes it.
private final class TempFile: Closable, Teardown {
    func tearDown() throws {}
}

/// A teardown that fails.
private final class StuckFile: Teardown {
    func tearDown() throws { throw Failure(code: 9) }
}

/// `container.async.verify()`: async factories built in the throwaway copy, their dependencies recorded,
/// captive scoped services and cycles through async factories reported; and the teardown checks of
/// verification.
@Suite struct AsyncVerificationTests {
    /// A server's container: a database singleton, a unit of work per scope, a handler per use; every
    /// factory async.
    private func serverContainer(log: Collected<String>, opened: Counter) -> Container {
        let container = Container()
        container.register(VerifiedDatabase.self) { _ in
            opened.increment()
            await Task.yield()
            return VerifiedDatabase(log: log)
        }.inObjectScope(.container)
        container.register(VerifiedUnitOfWork.self) { r in
            VerifiedUnitOfWork(database: try await r.require(VerifiedDatabase.self), log: log)
        }.inObjectScope(.scoped)
        container.register(VerifiedHandler.self) { r in
            await Task.yield()
            return VerifiedHandler(work: try await r.require(VerifiedUnitOfWork.self))
        }.inObjectScope(.transient)
        return container
    }

    @Test func asyncVerifyChecksEveryAsyncRegistrationOfAValidContainer() async throws {
        let container = serverContainer(log: Collected(), opened: Counter())

        let report = await container.async.verificationReport()

        #expect(report.isValid)
        #expect(report.unchecked.isEmpty)
        #expect(report.checkedCount == 3)
        try await container.async.verify()
    }

    @Test func asyncVerifyReportsASingletonWhoseAsyncFactoryCapturesAScopedService() async throws {
        let container = serverContainer(log: Collected(), opened: Counter())
        container.register(VerifiedCache.self) { r in
            VerifiedCache(work: try await r.require(VerifiedUnitOfWork.self))
        }.inObjectScope(.container)

        let report = await container.async.verificationReport()

        let captive = report.problems(ofKind: .captiveDependency)
        #expect(captive.map(\.path) == [["VerifiedCache", "VerifiedUnitOfWork"]])
        #expect(report.problems.count == 1)
        await #expect(throws: VerificationReport.self) { try await container.async.verify() }
    }

    @Test func synchronousVerifyListsAsyncFactoriesAsUncheckedAndPointsToTheAsyncOne() throws {
        let container = serverContainer(log: Collected(), opened: Counter())

        let report = container.verificationReport()

        #expect(report.isValid)
        #expect(report.checkedCount == 0)
        let reasons = report.unchecked.map(\.reason)
        #expect(reasons.count == 3)
        #expect(reasons.allSatisfy { $0.contains("container.async.verify()") })
    }

    @Test func asyncVerifyRecordsEdgesBetweenAsyncAndSynchronousFactories() async throws {
        final class Clock: Sendable {}
        final class Audit: Sendable {}
        final class Service: @unchecked Sendable {
            var audit: Audit?
        }
        let container = serverContainer(log: Collected(), opened: Counter())
        container.register(Clock.self) { _ in Clock() }
        container.register(Audit.self) { _ in Audit() }
        container.register(Service.self) { r in
            _ = try await r.require(VerifiedHandler.self)
            _ = try await r.require(Clock.self)
            return Service()
        }
        .initCompleted { r, service in service.audit = try r.require(Audit.self) }

        let graph = await container.async.dependencyGraph()

        let service = try #require(graph.node(for: Service.self)).id
        let handler = try #require(graph.node(for: VerifiedHandler.self)).id
        let clock = try #require(graph.node(for: Clock.self)).id
        let audit = try #require(graph.node(for: Audit.self)).id
        let work = try #require(graph.node(for: VerifiedUnitOfWork.self)).id
        let database = try #require(graph.node(for: VerifiedDatabase.self)).id
        #expect(
            Set(graph.dependencies(of: service)) == [
                .init(from: service, to: handler, kind: .initializer),
                .init(from: service, to: clock, kind: .initializer),
                .init(from: service, to: audit, kind: .initCompleted),
            ]
        )
        #expect(graph.dependencies(of: handler) == [.init(from: handler, to: work, kind: .initializer)])
        #expect(graph.dependencies(of: work) == [.init(from: work, to: database, kind: .initializer)])
    }

    @Test func asyncVerifyRecordsWhatConcurrentChildTasksOfAFactoryResolve() async throws {
        final class Clock: Sendable {}
        final class Dashboard: Sendable {}
        let container = serverContainer(log: Collected(), opened: Counter())
        container.register(Clock.self) { _ in Clock() }
        container.register(Dashboard.self) { r in
            async let handler = r.require(VerifiedHandler.self)
            async let clock = r.require(Clock.self)
            async let database = r.require(VerifiedDatabase.self)
            _ = try await (handler, clock, database)
            return Dashboard()
        }

        let graph = await container.async.dependencyGraph()

        let dashboard = try #require(graph.node(for: Dashboard.self)).id
        let targets = Set(graph.dependencies(of: dashboard).map(\.to))
        let expected = try [
            #require(graph.node(for: VerifiedHandler.self)).id, #require(graph.node(for: Clock.self)).id,
            #require(graph.node(for: VerifiedDatabase.self)).id,
        ]
        #expect(targets == Set(expected))
    }

    @Test func asyncVerifyReportsAMissingDependencyOfAnAsyncFactoryAlongItsPath() async throws {
        final class Mailer: Sendable {}
        final class Signup: Sendable {
            init(mailer: Mailer) {}
        }
        let container = Container()
        container.register(Signup.self) { r in
            await Task.yield()
            return Signup(mailer: try await r.require(Mailer.self))
        }

        let report = await container.async.verificationReport()

        let missing = report.problems(ofKind: .missingRegistration)
        #expect(missing.map(\.path) == [["Signup", "Mailer"]])
        #expect(report.problems.count == 1)
    }

    @Test func asyncVerifyReportsACycleThroughAsyncFactories() async throws {
        final class Left: Sendable {}
        final class Right: Sendable {}
        let container = Container()
        container.register(Left.self) { r in
            _ = try await r.require(Right.self)
            return Left()
        }
        container.register(Right.self) { r in
            _ = try await r.require(Left.self)
            return Right()
        }

        let report = await container.async.verificationReport()

        let cycles = report.problems(ofKind: .unbuildableCycle)
        #expect(cycles.map(\.path) == [["Left", "Right", "Left"]])
    }

    @Test func asyncVerifyListsSynchronousFactoriesThatNeedAnAsyncOne() async throws {
        final class Report: Sendable {}
        final class WeeklySummary: Sendable {}
        let container = serverContainer(log: Collected(), opened: Counter())
        container.register(Report.self) { r in
            _ = try r.require(VerifiedHandler.self)
            return Report()
        }
        // Built after the database singleton (by label), so it finds the instance made before; it would fail
        // where none was made yet, so it is listed all the same.
        container.register(WeeklySummary.self) { r in
            _ = try r.require(VerifiedDatabase.self)
            return WeeklySummary()
        }

        let report = await container.async.verificationReport()

        #expect(report.isValid)
        #expect(report.unchecked.map(\.service) == ["Report", "WeeklySummary"])
        #expect(report.unchecked[0].reason.contains("the synchronous factory of Report needs VerifiedHandler"))
        #expect(report.unchecked[1].reason.contains("the synchronous factory of WeeklySummary needs VerifiedDatabase"))
        let graph = report.graph
        let summary = try #require(graph.node(for: WeeklySummary.self)).id
        let database = try #require(graph.node(for: VerifiedDatabase.self)).id
        #expect(graph.dependencies(of: summary) == [.init(from: summary, to: database, kind: .initializer)])
    }

    @Test func asyncVerifyLeavesTheContainerAloneAndTearsDownWhatItMade() async throws {
        let log = Collected<String>()
        let opened = Counter()
        let container = serverContainer(log: log, opened: opened)

        try await container.async.verify()

        #expect(opened.value == 1)
        // Each registration is built in a scope of its own (the handler's and the unit of work's), ended
        // after the build; the copy's singletons when verification ends.
        #expect(log.values == ["unit of work ended", "unit of work ended", "database closed"])
        let database = try await container.async.require(VerifiedDatabase.self)
        #expect(opened.value == 2)
        #expect(try await container.async.require(VerifiedDatabase.self) === database)
        try await container.endPatiently()
    }

    @Test func synchronousVerifyTearsDownWhatItMadeWithoutLoggingALeak() throws {
        let log = Collected<String>()
        let container = Container()
        container.register(VerifiedDatabase.self) { _ in VerifiedDatabase(log: Collected()) }
            .inObjectScope(.container)
        container.register(VerifiedUnitOfWork.self) { r in
            VerifiedUnitOfWork(database: try r.require(VerifiedDatabase.self), log: log)
        }.inObjectScope(.scoped)

        let leaks = try messagesLogged(containing: "[Weft.notTornDown]") {
            try container.verify()
        }

        #expect(leaks.isEmpty)
        #expect(log.values == ["unit of work ended"])
    }

    @Test func verifyReportsATeardownServiceThatItsScopeNeverTearsDown() throws {
        let container = Container()
        container.register(TempFile.self) { _ in TempFile() }.inObjectScope(.transient)
        container.register(Closable.self) { _ in TempFile() }.inObjectScope(.graph)
        container.register(VerifiedUnitOfWork.self) { _ in
            VerifiedUnitOfWork(database: VerifiedDatabase(log: Collected()), log: Collected())
        }.inObjectScope(.weak)
        container.register(VerifiedDatabase.self) { (_, _: String) in VerifiedDatabase(log: Collected()) }
        container.register(StuckFile.self, name: "kept") { _ in StuckFile() }.inObjectScope(.scoped)

        let report = container.verificationReport()

        let lost = report.problems(ofKind: .teardownNeverRuns)
        #expect(lost.map(\.service) == ["Closable", "TempFile", "VerifiedDatabase", "VerifiedUnitOfWork"])
        let closable = try #require(lost.first)
        #expect(closable.message.contains("adopts Teardown, but its scope (graph) never tears instances down"))
        #expect(lost[2].message.contains("adopts AsyncTeardown"))
        #expect(lost.allSatisfy { $0.hint.contains("`.scoped`") })
    }

    @Test func verificationTearsDownWhatItBuiltInAScopeThatNeverWould() async throws {
        let log = Collected<String>()
        let databaseLog = Collected<String>()
        let container = Container()
        container.register(VerifiedUnitOfWork.self) { _ in
            VerifiedUnitOfWork(database: VerifiedDatabase(log: Collected()), log: log)
        }.inObjectScope(.transient)
        container.register(VerifiedDatabase.self) { _ in
            await Task.yield()
            return VerifiedDatabase(log: databaseLog)
        }.inObjectScope(.graph)

        let report = container.verificationReport()
        #expect(report.problems(ofKind: .teardownNeverRuns).count == 2)
        #expect(log.values == ["unit of work ended"])

        let asyncReport = await container.async.verificationReport()
        #expect(asyncReport.problems(ofKind: .teardownNeverRuns).count == 2)
        #expect(log.values == ["unit of work ended", "unit of work ended"])
        #expect(databaseLog.values == ["database closed"])
    }

    @Test func aTeardownThatThrowsWhenVerificationEndsItsCopyIsReported() async throws {
        let container = Container()
        container.register(StuckFile.self) { _ in StuckFile() }.inObjectScope(.container)

        let report = container.verificationReport()
        let asyncReport = await container.async.verificationReport()

        for report in [report, asyncReport] {
            let failed = report.problems(ofKind: .buildFailed)
            #expect(failed.map(\.message) == ["Tearing down StuckFile, made while verifying, threw."])
            #expect(failed.first?.underlyingError as? Failure == Failure(code: 9))
        }
    }
}
