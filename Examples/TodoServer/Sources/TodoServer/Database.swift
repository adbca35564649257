import Logging
import SQLiteNIO
import Weft

/// The server's SQLite database: one connection to one file, lent to one unit of work at a time.
///
/// The container makes it once, with an async factory that opens the file and creates the tables
/// (``open(path:log:logger:)``), and keeps it for the server's life (`.inObjectScope(.container)`). When the
/// container ends, Weft calls ``tearDown()``, which closes the connection.
///
/// SQLite lets one writer at a time change a database, so rather than a pool the database hands its single
/// connection to one ``UnitOfWork`` at a time (see ``lease()``); the others wait their turn in arrival order.
/// Each request's transaction therefore sees a consistent database and never fails with `SQLITE_BUSY`.
public actor Database: AsyncTeardown {
    /// Exclusive use of the connection, from ``Database/lease()`` until ``release()``.
    public struct Lease: Sendable {
        /// The database that lent the connection.
        let database: Database
        /// The lent connection.
        let connection: SQLiteConnection

        /// Runs one SQL statement with its bound values and returns the rows it produced.
        public func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
            try await connection.query(sql, binds)
        }

        /// Gives the connection back, to the next waiting unit of work if there is one.
        public func release() async {
            await database.release()
        }
    }

    /// Where the database file is.
    public nonisolated let path: String
    private let connection: SQLiteConnection
    private let log: LifecycleLog
    private let logger: Logger
    private var isLeased = false
    private var isClosed = false
    /// Tasks waiting for the connection, first come first served, each with a ticket to find it by.
    private var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextTicket: UInt64 = 0

    private init(path: String, connection: SQLiteConnection, log: LifecycleLog, logger: Logger) {
        self.path = path
        self.connection = connection
        self.log = log
        self.logger = logger
    }

    /// Opens (creating if needed) the database file at `path` and makes sure its tables exist.
    ///
    /// This is the body of the database's async factory: opening a file is I/O, which sqlite-nio runs on a
    /// thread pool and awaits, so the factory that calls it is `async`.
    ///
    /// - Parameters:
    ///   - path: The file; relative paths are relative to the working directory.
    ///   - log: Told that the database opened, and later that it closed.
    ///   - logger: Where sqlite-nio and the database log.
    public static func open(path: String, log: LifecycleLog, logger: Logger) async throws -> Database {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        do {
            for statement in schema {
                _ = try await connection.query(statement)
            }
        } catch {
            try? await connection.close()
            throw error
        }
        await log.record(.databaseOpened(path: path))
        logger.info("Opened the database", metadata: ["path": .string(path)])
        return Database(path: path, connection: connection, log: log, logger: logger)
    }

    /// The tables, made on first open; later opens leave them as they are.
    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS todos (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT NOT NULL,
            completed INTEGER NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS audit_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            request_id TEXT NOT NULL,
            action TEXT NOT NULL,
            todo_id INTEGER NOT NULL
        )
        """,
    ]

    /// Waits until the connection is free, then lends it to the caller alone until ``Lease/release()``.
    ///
    /// Waiters are served in the order they asked. A waiting task that is cancelled stops waiting and throws
    /// `CancellationError`.
    ///
    /// - Throws: ``TodoStoreError/databaseClosed`` once the database is closed.
    public func lease() async throws -> Lease {
        guard !isClosed else { throw TodoStoreError.databaseClosed }
        guard isLeased else {
            isLeased = true
            return Lease(database: self, connection: connection)
        }
        let ticket = nextTicket
        nextTicket += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((ticket, continuation))
                }
            }
        } onCancel: {
            Task { await self.stopWaiting(ticket: ticket) }
        }
        // The lease passed straight from the releasing unit of work to this one: `isLeased` stayed true.
        return Lease(database: self, connection: connection)
    }

    /// Whether a unit of work holds the connection now, and how many wait for it: both 0 when the server is idle.
    public var usage: (leased: Bool, waiting: Int) {
        (isLeased, waiters.count)
    }

    /// Takes the connection back and hands it to the first waiter, if any.
    private func release() {
        precondition(isLeased, "The database connection was released without being leased.")
        if waiters.isEmpty {
            isLeased = false
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    /// Removes a cancelled waiter from the queue, unless it was already served.
    private func stopWaiting(ticket: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.ticket == ticket }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Closes the connection; Weft calls this when the container that made the database ends.
    ///
    /// Units of work still waiting for the connection fail with ``TodoStoreError/databaseClosed``. The server
    /// ends its container only after the HTTP server has stopped, when no request is left.
    public func tearDown() async throws {
        guard !isClosed else { return }
        isClosed = true
        for waiter in waiters {
            waiter.continuation.resume(throwing: TodoStoreError.databaseClosed)
        }
        waiters.removeAll()
        if isLeased {
            logger.warning("Closing the database while a unit of work still holds its connection")
        }
        try await connection.close()
        await log.record(.databaseClosed)
        logger.info("Closed the database", metadata: ["path": .string(path)])
    }
}
