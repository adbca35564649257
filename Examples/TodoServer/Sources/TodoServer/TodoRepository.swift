import SQLiteNIO

/// Reads and writes to-do items inside the current request's ``UnitOfWork``.
///
/// Registered as transient with an async factory: each resolve makes a new, cheap repository, but all the
/// repositories of one request share that request's unit of work, because it is `.scoped`. Nothing here
/// commits: the request's scope does that as it ends.
public struct TodoRepository: Sendable {
    /// The unit of work every statement runs in.
    public let unitOfWork: UnitOfWork

    /// Makes a repository that works inside `unitOfWork`.
    public init(unitOfWork: UnitOfWork) {
        self.unitOfWork = unitOfWork
    }

    /// All items, oldest first.
    public func all() async throws -> [Todo] {
        try await unitOfWork.query("SELECT id, title, completed FROM todos ORDER BY id").map(Todo.init(row:))
    }

    /// The item with this id, or `nil` if there is none.
    public func find(id: Int) async throws -> Todo? {
        let rows = try await unitOfWork.query(
            "SELECT id, title, completed FROM todos WHERE id = ?",
            [.integer(SQLiteInt64(id))]
        )
        return try rows.first.map(Todo.init(row:))
    }

    /// Adds a not yet completed item with this title and returns it with its new id.
    ///
    /// - Parameter title: An already validated title (see ``TitleRules``).
    public func create(title: String) async throws -> Todo {
        let rows = try await unitOfWork.query(
            "INSERT INTO todos (title, completed) VALUES (?, 0) RETURNING id, title, completed",
            [.text(title)]
        )
        guard let row = rows.first else { throw TodoStoreError.malformedRow("no row returned by INSERT") }
        return try Todo(row: row)
    }

    /// Changes the fields of an item that `changes` sets and returns the item, or `nil` if there is none.
    ///
    /// - Parameters:
    ///   - id: The item to change.
    ///   - title: A new, already validated title, or `nil` to keep the title.
    ///   - completed: A new completion state, or `nil` to keep it.
    public func update(id: Int, title: String?, completed: Bool?) async throws -> Todo? {
        let rows = try await unitOfWork.query(
            """
            UPDATE todos SET title = coalesce(?, title), completed = coalesce(?, completed)
            WHERE id = ? RETURNING id, title, completed
            """,
            [
                title.map(SQLiteData.text) ?? .null,
                completed.map { .integer($0 ? 1 : 0) } ?? .null,
                .integer(SQLiteInt64(id)),
            ]
        )
        return try rows.first.map(Todo.init(row:))
    }

    /// Removes the item with this id; returns whether there was one.
    public func delete(id: Int) async throws -> Bool {
        let rows = try await unitOfWork.query(
            "DELETE FROM todos WHERE id = ? RETURNING id",
            [.integer(SQLiteInt64(id))]
        )
        return !rows.isEmpty
    }
}

/// Writes who changed which item into the `audit_log` table, in the same transaction as the change.
///
/// A second service that needs the request's ``UnitOfWork``: handlers that change items resolve both it and a
/// ``TodoRepository``, and Weft hands both the same unit of work, so a change and its audit entry are
/// committed, or rolled back, together.
public struct AuditTrail: Sendable {
    /// The unit of work every entry is written in.
    public let unitOfWork: UnitOfWork

    /// Makes an audit trail that writes inside `unitOfWork`.
    public init(unitOfWork: UnitOfWork) {
        self.unitOfWork = unitOfWork
    }

    /// What was done to an item.
    public enum Action: String, Sendable {
        /// The item was created.
        case created
        /// Some of its fields changed.
        case updated
        /// It was deleted.
        case deleted
    }

    /// Records that the current request did `action` to the item `todoID`.
    public func record(_ action: Action, todoID: Int) async throws {
        _ = try await unitOfWork.query(
            "INSERT INTO audit_log (request_id, action, todo_id) VALUES (?, ?, ?)",
            [.text(unitOfWork.requestID), .text(action.rawValue), .integer(SQLiteInt64(todoID))]
        )
    }
}
