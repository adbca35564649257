import Foundation
import Hummingbird
import SQLiteNIO

/// A to-do item as stored in the `todos` table and sent over HTTP.
public struct Todo: ResponseCodable, Equatable, Sendable {
    /// The row id, assigned by SQLite when the item is created.
    public var id: Int
    /// What is to be done; never empty.
    public var title: String
    /// Whether it has been done.
    public var completed: Bool

    /// Makes a to-do item from its fields.
    public init(id: Int, title: String, completed: Bool) {
        self.id = id
        self.title = title
        self.completed = completed
    }

    /// Reads a to-do item from a row that has the columns `id`, `title` and `completed`.
    ///
    /// - Throws: ``TodoStoreError/malformedRow(_:)`` when a column is missing or of the wrong type.
    init(row: SQLiteRow) throws {
        guard
            let id = row.column("id")?.integer,
            let title = row.column("title")?.string,
            let completed = row.column("completed")?.bool
        else {
            throw TodoStoreError.malformedRow(row.description)
        }
        self.init(id: Int(id), title: title, completed: completed)
    }
}

/// The body of `POST /todos`: `{"title": "..."}`.
public struct NewTodo: Codable, Equatable, Sendable {
    /// The title of the item to create.
    public var title: String

    /// Makes a request body with a title.
    public init(title: String) {
        self.title = title
    }
}

/// The body of `PATCH /todos/:id`: any of `{"title": "...", "completed": true}`; fields left out keep their value.
public struct TodoChanges: Codable, Equatable, Sendable {
    /// The new title, if it changes.
    public var title: String?
    /// The new completion state, if it changes.
    public var completed: Bool?

    /// Makes a request body; `nil` fields are left as they are.
    public init(title: String? = nil, completed: Bool? = nil) {
        self.title = title
        self.completed = completed
    }

    /// Whether the body changes nothing, which the server answers with 400 Bad Request.
    public var isEmpty: Bool { title == nil && completed == nil }
}

/// The rules a title must follow; breaking them is the client's mistake, so it is answered with 400.
public enum TitleRules {
    /// The longest title accepted, in characters.
    public static let maximumLength = 200

    /// Returns the title without surrounding white space, or throws a 400 error that says what is wrong.
    ///
    /// - Parameter title: The title as the client sent it.
    /// - Throws: `HTTPError(.badRequest)` when the title is blank or longer than ``maximumLength``.
    public static func validated(_ title: String) throws -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw HTTPError(.badRequest, message: "A title must not be empty.")
        }
        guard trimmed.count <= maximumLength else {
            throw HTTPError(.badRequest, message: "A title must have at most \(maximumLength) characters.")
        }
        return trimmed
    }
}

/// Failures of the storage layer that are not the client's fault; they become 500 Internal Server Error.
public enum TodoStoreError: Error, CustomStringConvertible, Sendable {
    /// A row lacked a column the code relies on.
    case malformedRow(String)
    /// The database was used after it was closed (the container ended while work was still going on).
    case databaseClosed
    /// The unit of work was used after the request it belongs to had ended.
    case unitOfWorkFinished(requestID: String)
    /// Ending a transaction failed, and so did rolling it back afterwards.
    case rollbackFailed(after: String, rollbackError: String)

    /// A sentence that says what went wrong.
    public var description: String {
        switch self {
        case .malformedRow(let row):
            "A row from the database lacks an expected column: \(row)"
        case .databaseClosed:
            "The database is closed."
        case .unitOfWorkFinished(let requestID):
            "The unit of work of request \(requestID) was used after it had been committed or rolled back."
        case .rollbackFailed(let first, let rollbackError):
            "Ending a transaction failed (\(first)), and rolling it back failed too (\(rollbackError))."
        }
    }
}
