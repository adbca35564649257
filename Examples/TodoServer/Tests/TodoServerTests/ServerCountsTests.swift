import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TodoServer
import Weft

/// What a long-running server keeps: the lifecycle log stays bounded however many requests it serves, and the
/// server's counts (`GET /stats`) show every request's scope made and ended.
@Suite("Server counts", .timeLimit(.minutes(1)))
struct ServerCountsTests {
    @Test func theLifecycleLogKeepsCountsOfEverythingButOnlyItsMostRecentEvents() async {
        let log = LifecycleLog(capacity: 100)
        for index in 0..<10_000 {
            await log.record(.unitOfWorkBegan(requestID: "r\(index)"))
            await log.record(
                .unitOfWorkEnded(requestID: "r\(index)", outcome: index.isMultiple(of: 2) ? .committed : .rolledBack))
        }

        #expect(await log.events.count == 100)
        #expect(await log.unitsOfWorkBegan == 10_000)
        #expect(await log.unitsOfWorkEnded == [.committed: 5_000, .rolledBack: 5_000])
        #expect(await log.unitsOfWorkOpen == 0)
        #expect(await log.events.last == .unitOfWorkEnded(requestID: "r9999", outcome: .rolledBack))
        #expect(await log.outcome(ofRequest: "r9998") == .committed)
        #expect(await log.outcome(ofRequest: "r0") == nil)
    }

    @Test func theStatsCountEveryRequestsScopeMadeAndEnded() async throws {
        try await withTodoServer { server in
            let counts = try await server.run { client in
                _ = try await client.send(.post, "/todos", json: NewTodo(title: "One"))
                _ = try await client.send(.get, "/todos/1")
                _ = try await client.send(.get, "/todos/999")
                _ = try await client.send(.post, "/todos", json: NewTodo(title: ""))
                return try await client.send(.get, "/stats").decoded(as: ServerStats.Counts.self)
            }
            #expect(counts.requests == 4)
            #expect(counts.serverErrors == 0)
            #expect(counts.scopesMade == 4)
            #expect(counts.scopesEnded == 4)
            // The rejected title needs no database: three units of work.
            #expect(counts.unitsOfWorkBegan == 3)
            #expect(counts.unitsOfWorkEnded == 3)
            #expect(counts.unitsOfWorkOpen == 0)
            #expect(!counts.connectionLeased)
            #expect(counts.connectionWaiters == 0)
        }
    }
}
