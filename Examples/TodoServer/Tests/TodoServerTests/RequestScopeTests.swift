import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TodoServer
import Weft

/// Per-request scopes: one unit of work per request, shared inside it, ended before the response goes out.
@Suite("Per-request scopes", .timeLimit(.minutes(1)))
struct RequestScopeTests {
    @Test func aRequestMakesOneUnitOfWorkThoughSeveralServicesResolveIt() async throws {
        try await withTodoServer { server in
            // The batch handler resolves a repository and an audit trail for each of three items: six async
            // resolutions of services that each need the request's unit of work.
            let response = try await server.run { client in
                try await client.send(
                    .post,
                    "/todos/batch",
                    json: [NewTodo(title: "a"), NewTodo(title: "b"), NewTodo(title: "c")]
                )
            }
            #expect(response.status == .created)
            let requestID = try #require(response.requestID)
            #expect(await server.lifecycleLog.beginCount(ofRequest: requestID) == 1)
            #expect(await server.lifecycleLog.outcome(ofRequest: requestID) == .committed)
            // All six audit entries carry the one unit of work's request id.
            let audited = try await server.rows("SELECT request_id FROM audit_log")
            #expect(audited.map { $0.column("request_id")?.string } == Array(repeating: requestID, count: 3))
        }
    }

    @Test func racingResolutionsInOneScopeShareOneUnitOfWork() async throws {
        try await withTodoServer { server in
            let scope = server.container.makeScope()
            // Ten resolutions at once while the first is still suspended in the async factory (waiting for the
            // connection, running BEGIN): Weft makes the scoped instance once and hands it to all ten. Were it
            // made twice, the second would wait for the connection the first holds, forever.
            let units = try await withThrowingTaskGroup(of: UnitOfWork.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await scope.async.require(UnitOfWork.self) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(units.count == 10)
            #expect(units.allSatisfy { $0 === units[0] })
            #expect(await server.lifecycleLog.requestsThatBegan.count == 1)
            try await scope.end()
            #expect(await server.lifecycleLog.requestsThatEnded.count == 1)
            try await server.container.end()
        }
    }

    @Test func everyUnitOfWorkIsEndedBeforeItsResponseArrives() async throws {
        try await withTodoServer { server in
            let log = server.lifecycleLog
            let requestIDs = try await server.run { client in
                var ids: [String] = []
                for index in 0..<5 {
                    let response = try await client.send(.post, "/todos", json: NewTodo(title: "Item \(index)"))
                    let id = try #require(response.requestID)
                    // Already committed: the middleware ended the scope before it returned the response.
                    #expect(await log.outcome(ofRequest: id) == .committed)
                    ids.append(id)
                }
                let listing = try await client.send(.get, "/todos")
                ids.append(try #require(listing.requestID))
                return ids
            }
            #expect(Set(requestIDs).count == requestIDs.count)
            #expect(await log.requestsThatBegan == requestIDs)
            #expect(await log.requestsThatEnded.map(\.requestID) == requestIDs)
            #expect(await log.requestsThatEnded.allSatisfy { $0.outcome == .committed })
        }
    }

    @Test func twentyConcurrentRequestsEachGetTheirOwnUnitOfWork() async throws {
        try await withTodoServer { server in
            let log = server.lifecycleLog
            let (responses, listed) = try await server.run { client in
                let port = try #require(client.port)
                // Twenty connections at once: the `.live` client has one connection, so each task opens its own.
                let responses = try await withThrowingTaskGroup(of: TestClient.Response.self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                                try await connection.post(
                                    "/todos",
                                    headers: [.contentType: "application/json"],
                                    body: ByteBuffer(string: #"{"title": "Concurrent \#(index)"}"#)
                                )
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let listed: [Todo] = try await client.send(.get, "/todos").decoded()
                return (responses, listed)
            }
            #expect(responses.allSatisfy { $0.status == .created })
            let requestIDs = responses.compactMap { $0.headers[.requestID] }
            #expect(Set(requestIDs).count == 20)
            #expect(listed.count == 20)
            #expect(Set(listed.map(\.title)) == Set((0..<20).map { "Concurrent \($0)" }))
            for id in requestIDs {
                #expect(await log.beginCount(ofRequest: id) == 1)
                #expect(await log.outcome(ofRequest: id) == .committed)
            }
            // 20 creations + the listing: as many ends as beginnings, none left open.
            #expect(await log.requestsThatBegan.count == 21)
            #expect(await log.requestsThatEnded.count == 21)
        }
    }

    @Test func aFailedRequestStillEndsItsScopeAndRollsBack() async throws {
        try await withTodoServer { server in
            let log = server.lifecycleLog
            try await server.run { client in
                let missing = try await client.send(.get, "/todos/999")
                #expect(missing.status == .notFound)
                let missingID = try #require(missing.requestID)
                #expect(await log.outcome(ofRequest: missingID) == .rolledBack)

                let batch = try await client.send(
                    .post,
                    "/todos/batch",
                    json: [NewTodo(title: "kept?"), NewTodo(title: "")]
                )
                #expect(batch.status == .badRequest)
                let batchID = try #require(batch.requestID)
                #expect(await log.outcome(ofRequest: batchID) == .rolledBack)

                // The connection went back to the database: the next request is served as usual.
                #expect(try await client.send(.get, "/todos").decoded(as: [Todo].self).isEmpty)
            }
            let began = await log.requestsThatBegan.count
            #expect(await log.requestsThatEnded.count == began)
            #expect(server.logs.errors.isEmpty)
        }
    }

    @Test func aRequestThatNeedsNoDatabaseMakesNoUnitOfWork() async throws {
        try await withTodoServer { server in
            let response = try await server.run { client in
                // The title is checked before any service is resolved.
                try await client.send(.post, "/todos", json: NewTodo(title: ""))
            }
            #expect(response.status == .badRequest)
            #expect(await server.lifecycleLog.beginCount(ofRequest: try #require(response.requestID)) == 0)
            #expect(await server.lifecycleLog.requestsThatBegan.isEmpty)
        }
    }

    @Test func aTeardownFailureIsLoggedAndTurnsSuccessInto500() async throws {
        let prepare: (Container) -> Void = { container in
            container.register(FailingResource.self) { _ in FailingResource() }
                .inObjectScope(.scoped)
            // The audit trail now also needs a resource whose teardown fails.
            container.register(AuditTrail.self) { r async throws in
                _ = try await r.require(FailingResource.self)
                return AuditTrail(unitOfWork: try await r.require(UnitOfWork.self))
            }
            .inObjectScope(.transient)
        }
        try await withTodoServer(prepare: prepare) { server in
            let response = try await server.run { client in
                try await client.send(.post, "/todos", json: NewTodo(title: "Doomed"))
            }
            #expect(response.status == .internalServerError)
            let requestID = try #require(response.requestID)
            // Weft still ran the scope's other teardowns: the unit of work's own teardown committed and gave
            // the connection back. (The 500 says the request's end failed; it cannot undo a commit.)
            #expect(await server.lifecycleLog.outcome(ofRequest: requestID) == .committed)
            let reported = server.logs.errors.filter { $0.message == "Ending the request's scope failed" }
            #expect(reported.count == 1)
            #expect(reported.first?.metadata["error"]?.contains("the resource would not let go") == true)
            #expect(reported.first?.metadata["hb.request.id"] == requestID)
        }
    }
}

/// A scoped resource whose teardown always fails, to see that the failure is reported.
final class FailingResource: AsyncTeardown, Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "the resource would not let go" }
    }

    func tearDown() async throws {
        throw Failure()
    }
}
