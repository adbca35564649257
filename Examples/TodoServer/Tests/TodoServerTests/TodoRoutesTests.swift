import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TodoServer

/// The HTTP interface: routes, bodies and status codes, over a live server and a real database file.
@Suite("To-do routes over HTTP", .timeLimit(.minutes(1)))
struct TodoRoutesTests {
    @Test func createReadUpdateListAndDeleteRoundTripOverHTTP() async throws {
        try await withTodoServer { server in
            try await server.run { client in
                let created = try await client.send(.post, "/todos", json: NewTodo(title: "  Water the plants "))
                #expect(created.status == .created)
                let todo: Todo = try created.decoded()
                #expect(todo.title == "Water the plants")
                #expect(todo.completed == false)
                #expect(created.headers[.location] == "/todos/\(todo.id)")

                let fetched = try await client.send(.get, "/todos/\(todo.id)")
                #expect(fetched.status == .ok)
                #expect(try fetched.decoded() == todo)

                let patched = try await client.send(.patch, "/todos/\(todo.id)", json: TodoChanges(completed: true))
                #expect(patched.status == .ok)
                #expect(try patched.decoded() == Todo(id: todo.id, title: "Water the plants", completed: true))

                let renamed = try await client.send(.patch, "/todos/\(todo.id)", json: TodoChanges(title: "Repot"))
                #expect(try renamed.decoded() == Todo(id: todo.id, title: "Repot", completed: true))

                let second = try await client.send(.post, "/todos", json: NewTodo(title: "Buy soil"))
                let list = try await client.send(.get, "/todos")
                #expect(list.status == .ok)
                #expect(try list.decoded() == [Todo(id: todo.id, title: "Repot", completed: true), second.decoded()])

                let deleted = try await client.send(.delete, "/todos/\(todo.id)")
                #expect(deleted.status == .noContent)
                #expect(try await client.send(.get, "/todos/\(todo.id)").status == .notFound)
                #expect(try await client.send(.get, "/todos").decoded() == [try second.decoded() as Todo])
            }
            #expect(server.logs.errors.isEmpty)
        }
    }

    @Test func missingItemsAnswer404ForGetPatchAndDelete() async throws {
        try await withTodoServer { server in
            try await server.run { client in
                #expect(try await client.send(.get, "/todos/41").status == .notFound)
                let patch = try await client.send(.patch, "/todos/41", json: TodoChanges(completed: true))
                #expect(patch.status == .notFound)
                #expect(try await client.send(.delete, "/todos/41").status == .notFound)
                let body = String(buffer: try await client.send(.get, "/todos/41").body)
                #expect(body.contains("no to-do item with id 41"))
            }
        }
    }

    @Test func badInputAnswers400() async throws {
        try await withTodoServer { server in
            try await server.run { client in
                #expect(try await client.send(.post, "/todos", json: NewTodo(title: "   ")).status == .badRequest)
                let tooLong = String(repeating: "x", count: TitleRules.maximumLength + 1)
                #expect(try await client.send(.post, "/todos", json: NewTodo(title: tooLong)).status == .badRequest)
                #expect(try await client.send(.post, "/todos", json: ["name": "no title"]).status == .badRequest)
                let notJSON = try await client.executeRequest(
                    uri: "/todos",
                    method: .post,
                    headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: "{title:")
                )
                #expect(notJSON.status == .badRequest)

                let todo: Todo = try await client.send(.post, "/todos", json: NewTodo(title: "Valid")).decoded()
                #expect(try await client.send(.patch, "/todos/\(todo.id)", json: TodoChanges()).status == .badRequest)
                #expect(
                    try await client.send(.patch, "/todos/\(todo.id)", json: TodoChanges(title: "")).status
                        == .badRequest
                )
                #expect(try await client.send(.get, "/todos/not-a-number").status == .badRequest)
                // Nothing but the one valid item was stored.
                #expect(try await client.send(.get, "/todos").decoded() == [todo])
            }
        }
    }

    @Test func aBatchIsCreatedWholeOrNotAtAll() async throws {
        try await withTodoServer { server in
            try await server.run { client in
                let good = try await client.send(
                    .post,
                    "/todos/batch",
                    json: [NewTodo(title: "One"), NewTodo(title: "Two")]
                )
                #expect(good.status == .created)
                #expect(try good.decoded(as: [Todo].self).map(\.title) == ["One", "Two"])

                // "Three" and "Four" are inserted before the blank title fails the request: both are rolled back.
                let bad = try await client.send(
                    .post,
                    "/todos/batch",
                    json: [NewTodo(title: "Three"), NewTodo(title: "Four"), NewTodo(title: " ")]
                )
                #expect(bad.status == .badRequest)
                #expect(try await client.send(.get, "/todos").decoded(as: [Todo].self).map(\.title) == ["One", "Two"])
            }
            // The audit entries of the failed batch were rolled back with its items.
            let audited = try await server.rows("SELECT todo_id FROM audit_log ORDER BY id")
            #expect(audited.count == 2)
        }
    }

    @Test func itemsPersistInTheDatabaseFileAcrossServerRestarts() async throws {
        let first = try TodoServerFixture()
        defer { first.removeFiles() }
        let todo: Todo = try await first.run { client in
            try await client.send(.post, "/todos", json: NewTodo(title: "Survive a restart")).decoded()
        }

        // A new container and a new application on the same file: the database is opened anew and still
        // holds the item.
        let second = try TodoServerFixture(databasePath: first.configuration.databasePath)
        defer { second.removeFiles() }
        let listed: [Todo] = try await second.run { client in
            try await client.send(.get, "/todos").decoded()
        }
        #expect(listed == [todo])
        #expect(await first.lifecycleLog.databaseOpenCount == 1)
        #expect(await second.lifecycleLog.databaseOpenCount == 1)
    }
}
