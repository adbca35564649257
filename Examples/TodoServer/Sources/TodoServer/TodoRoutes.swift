import HTTPTypes
import Hummingbird
import Weft

/// The HTTP interface of the to-do list.
///
/// | Route | Answer |
/// | --- | --- |
/// | `GET /todos` | 200 and every item |
/// | `POST /todos` with `{"title": ...}` | 201 and the new item; 400 for a blank or over-long title |
/// | `POST /todos/batch` with `[{"title": ...}, ...]` | 201 and the new items; all or none (400) |
/// | `GET /todos/:id` | 200 and the item; 404 if there is none |
/// | `PATCH /todos/:id` with `{"title": ..., "completed": ...}` | 200 and the item; 400, 404 |
/// | `DELETE /todos/:id` | 204; 404 if there is none |
///
/// Every handler takes its services from the request's scope with `context.require(...)` (WeftHummingbird);
/// none of them commits or ends anything, because the scope middleware ends the scope once the handler has
/// answered, which commits or rolls back the request's ``UnitOfWork``.
public enum TodoRoutes {
    /// Adds the routes under `/todos` to `router`.
    ///
    /// The scope middlewares of ``buildApplication(configuration:container:)`` must already be on the router, so
    /// that each request has a scope.
    public static func add(to router: Router<TodoRequestContext>) {
        router.group("todos")
            .get(use: list)
            .post(use: create)
            .post("batch", use: createBatch)
            .get(":id", use: show)
            .patch(":id", use: update)
            .delete(":id", use: delete)
    }

    @Sendable static func list(_ request: Request, context: TodoRequestContext) async throws -> [Todo] {
        let todos = try await context.require(TodoRepository.self)
        return try await todos.all()
    }

    @Sendable static func show(_ request: Request, context: TodoRequestContext) async throws -> Todo {
        let id = try context.parameters.require("id", as: Int.self)
        let todos = try await context.require(TodoRepository.self)
        guard let todo = try await todos.find(id: id) else { throw notFound(id) }
        return todo
    }

    @Sendable static func create(
        _ request: Request,
        context: TodoRequestContext
    ) async throws -> EditedResponse<Todo> {
        let title = try TitleRules.validated(try await request.decode(as: NewTodo.self, context: context).title)
        // Two services, one unit of work: the repository and the audit trail are both made from the same
        // scoped `UnitOfWork`, so the item and its audit entry are committed together.
        let todos = try await context.require(TodoRepository.self)
        let audit = try await context.require(AuditTrail.self)
        let todo = try await todos.create(title: title)
        try await audit.record(.created, todoID: todo.id)
        return EditedResponse(status: .created, headers: [.location: "/todos/\(todo.id)"], response: todo)
    }

    /// Creates several items in the request's one transaction: if any title is bad, the items made before it
    /// are rolled back with the rest of the request, and the answer is 400.
    @Sendable static func createBatch(
        _ request: Request,
        context: TodoRequestContext
    ) async throws -> EditedResponse<[Todo]> {
        let batch = try await request.decode(as: [NewTodo].self, context: context)
        var created: [Todo] = []
        for item in batch {
            // Resolved on each pass on purpose: a transient repository each time, the same unit of work.
            let todos = try await context.require(TodoRepository.self)
            let audit = try await context.require(AuditTrail.self)
            let todo = try await todos.create(title: try TitleRules.validated(item.title))
            try await audit.record(.created, todoID: todo.id)
            created.append(todo)
        }
        return EditedResponse(status: .created, response: created)
    }

    @Sendable static func update(_ request: Request, context: TodoRequestContext) async throws -> Todo {
        let id = try context.parameters.require("id", as: Int.self)
        let changes = try await request.decode(as: TodoChanges.self, context: context)
        guard !changes.isEmpty else {
            throw HTTPError(.badRequest, message: "Send a title, a completed flag, or both.")
        }
        let title = try changes.title.map(TitleRules.validated)
        let todos = try await context.require(TodoRepository.self)
        let audit = try await context.require(AuditTrail.self)
        guard let todo = try await todos.update(id: id, title: title, completed: changes.completed) else {
            throw notFound(id)
        }
        try await audit.record(.updated, todoID: id)
        return todo
    }

    @Sendable static func delete(
        _ request: Request,
        context: TodoRequestContext
    ) async throws -> HTTPResponse.Status {
        let id = try context.parameters.require("id", as: Int.self)
        let todos = try await context.require(TodoRepository.self)
        let audit = try await context.require(AuditTrail.self)
        guard try await todos.delete(id: id) else { throw notFound(id) }
        try await audit.record(.deleted, todoID: id)
        return .noContent
    }

    private static func notFound(_ id: Int) -> HTTPError {
        HTTPError(.notFound, message: "There is no to-do item with id \(id).")
    }
}
