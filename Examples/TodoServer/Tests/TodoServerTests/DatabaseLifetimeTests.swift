import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TodoServer
import Weft

/// The database singleton: made once by its async factory, shared by every scope, closed by `container.end()`.
@Suite("Database lifetime", .timeLimit(.minutes(1)))
struct DatabaseLifetimeTests {
    @Test func theDatabaseIsOpenedOnceForAllRequestsAndClosedWhenTheServerStops() async throws {
        try await withTodoServer { server in
            let log = server.lifecycleLog
            #expect(await log.databaseOpenCount == 0)  // Nothing is made before it is needed.

            try await server.run { client in
                for index in 0..<3 {
                    _ = try await client.send(.post, "/todos", json: NewTodo(title: "Item \(index)"))
                }
                let port = try #require(client.port)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<10 {
                        group.addTask {
                            _ = try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                                try await connection.get("/todos")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(await log.databaseOpenCount == 1)
                #expect(await log.databaseCloseCount == 0)
            }

            // Stopping the application ended the container, which closed the database, once and last.
            #expect(await log.databaseOpenCount == 1)
            #expect(await log.databaseCloseCount == 1)
            #expect(await log.events.last == .databaseClosed)
            #expect(await log.requestsThatEnded.count == 13)
        }
    }

    @Test func everyScopeSharesTheOneDatabaseUntilTheContainerEnds() async throws {
        try await withTodoServer { server in
            let container = server.container
            let first = container.makeScope()
            let second = container.makeScope()
            let fromFirst = try await first.async.require(Database.self)
            let fromSecond = try await second.async.require(Database.self)
            let fromRoot = try await container.async.require(Database.self)
            #expect(fromFirst === fromSecond)
            #expect(fromFirst === fromRoot)
            try await first.end()
            try await second.end()
            #expect(await server.lifecycleLog.databaseCloseCount == 0)  // Ending a scope leaves singletons alone.

            try await container.end()
            #expect(await server.lifecycleLog.databaseCloseCount == 1)
            await #expect(throws: TodoStoreError.self) { _ = try await fromRoot.lease() }
        }
    }

    @Test func unitsOfWorkOfDifferentRequestsTakeTurnsOnTheConnection() async throws {
        try await withTodoServer { server in
            let container = server.container
            let log = server.lifecycleLog
            let first = container.makeScope()
            _ = try await first.async.require(UnitOfWork.self)

            let second = container.makeScope()
            let waiting = Task { _ = try await second.async.require(UnitOfWork.self) }
            try await Task.sleep(for: .milliseconds(200))
            #expect(await log.requestsThatBegan.count == 1)  // The second is still waiting for the connection.

            try await first.end()
            try await waiting.value
            #expect(await log.requestsThatBegan.count == 2)
            try await second.end()
            #expect(await log.requestsThatEnded.count == 2)
            try await container.end()
        }
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        try await withTodoServer { server in
            let container = server.container
            let database = try await container.async.require(Database.self)
            let held = try await database.lease()

            let cancelled = Task { try await database.lease() }
            try await Task.sleep(for: .milliseconds(100))
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { _ = try await cancelled.value }

            // Released with no one left waiting, the connection is free at once.
            await held.release()
            let next = try await database.lease()
            await next.release()
            try await container.end()
        }
    }
}
