import Logging
import Testing
import TodoServer
import Weft

/// A report cache that keeps the repository it was made with: registered as a singleton, it would keep the
/// first request's unit of work for good.
final class TodoReportCache: Sendable {
    let repository: TodoRepository
    init(repository: TodoRepository) { self.repository = repository }
}

/// `container.async.verify()` on the server's container: every registration built (async factories too) in
/// a throwaway copy, before any request.
@Suite("Container verification", .timeLimit(.minutes(1)))
struct ContainerVerificationTests {
    @Test func theServerContainerVerifiesWithEveryAsyncFactoryBuilt() async throws {
        try await withTodoServer { server in
            let report = await server.container.async.verificationReport()

            #expect(report.isValid, "\(report)")
            // LifecycleLog, ServerStats, Database, RequestInfo, UnitOfWork, TodoRepository, AuditTrail.
            #expect(report.checkedCount == 7)
            #expect(report.unchecked.isEmpty)
            // Verification built its own copy: the server's database has not been opened.
            #expect(await server.lifecycleLog.databaseOpenCount == 0)
        }
    }

    @Test func aSingletonThatWouldKeepOneRequestsUnitOfWorkIsReported() async throws {
        let prepare: (Container) -> Void = { container in
            container.register(TodoReportCache.self) { r in
                TodoReportCache(repository: try await r.require(TodoRepository.self))
            }
            .inObjectScope(.container)
        }
        try await withTodoServer(prepare: prepare) { server in
            let report = await server.container.async.verificationReport()

            let captive = report.problems(ofKind: .captiveDependency)
            #expect(captive.map(\.path) == [["TodoReportCache", "TodoRepository", "UnitOfWork"]])
        }
    }

    @Test func aDatabaseRegisteredTransientIsReportedAsNeverClosed() async throws {
        let prepare: (Container) -> Void = { container in
            // A connection per resolve that nothing ever closes.
            container.register(Database.self, name: "unpooled") { r in
                let shared = try await r.require(Database.self)
                return try await Database.open(
                    path: shared.path, log: try await r.require(LifecycleLog.self), logger: Logger(label: "unpooled"))
            }
            .inObjectScope(.transient)
        }
        try await withTodoServer(prepare: prepare) { server in
            let report = await server.container.async.verificationReport()

            let lost = report.problems(ofKind: .teardownNeverRuns)
            #expect(lost.map(\.service) == ["Database[\"unpooled\"]"])
            #expect(lost.first?.message.contains("adopts AsyncTeardown") == true)
        }
    }
}
