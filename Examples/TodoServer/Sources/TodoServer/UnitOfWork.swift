import Logging
import SQLiteNIO
import Weft

/// What the server knows about the request a scope belongs to: its id, and whether it succeeded.
///
/// Registered `.inObjectScope(.scoped)`, so each request's scope has its own. ``RequestInfoMiddleware``
/// resolves it first, fills in the request id, and once the handler has answered says whether the request
/// succeeded; the ``UnitOfWork`` of the same scope reads both.
///
/// Its teardown, when the scope ends, is counted in ``ServerStats``: the load script checks that every request's
/// scope ended.
public actor RequestInfo: Teardown {
    /// The request id Hummingbird gave the request (also sent back in the `X-Request-ID` header).
    public private(set) var id = "unknown"
    /// Whether the handler answered with a status below 400; `false` until the handler has answered.
    public private(set) var succeeded = false
    private let stats: ServerStats

    /// Makes the information of a request whose id is not known yet, counted in `stats`.
    public init(stats: ServerStats) {
        self.stats = stats
        stats.scopeMade()
    }

    /// Counts the end of the request's scope.
    public nonisolated func tearDown() {
        stats.scopeEnded()
    }

    /// Records the request id; the middleware calls this before the handler runs.
    public func start(id: String) {
        self.id = id
    }

    /// Records whether the request succeeded; the middleware calls this after the handler has answered.
    public func finish(succeeded: Bool) {
        self.succeeded = succeeded
    }
}

/// One request's database work: a transaction that the request's scope commits or rolls back as it ends.
///
/// Registered `.inObjectScope(.scoped)` with an async factory (``begin(database:request:log:)``): the first
/// service of a request that needs it makes it, which waits for the database connection and begins a
/// transaction; every other service of the same request gets the same one. When the request's scope ends, Weft
/// calls ``tearDown()``, which commits if the request succeeded and rolls back if not, then gives the
/// connection back.
public actor UnitOfWork: AsyncTeardown {
    /// The id of the request this unit of work belongs to.
    public nonisolated let requestID: String
    private let lease: Database.Lease
    private let request: RequestInfo
    private let log: LifecycleLog
    private var isFinished = false

    private init(requestID: String, lease: Database.Lease, request: RequestInfo, log: LifecycleLog) {
        self.requestID = requestID
        self.lease = lease
        self.request = request
        self.log = log
    }

    /// Waits for the database connection and begins a transaction on it.
    ///
    /// - Parameters:
    ///   - database: The database to work in.
    ///   - request: The request the work is for; read again at teardown to choose commit or rollback.
    ///   - log: Told that the unit of work began, and later how it ended.
    public static func begin(database: Database, request: RequestInfo, log: LifecycleLog) async throws -> UnitOfWork {
        let requestID = await request.id
        let lease = try await database.lease()
        do {
            _ = try await lease.query("BEGIN DEFERRED TRANSACTION")
        } catch {
            await lease.release()
            throw error
        }
        await log.record(.unitOfWorkBegan(requestID: requestID))
        return UnitOfWork(requestID: requestID, lease: lease, request: request, log: log)
    }

    /// Runs one SQL statement inside the transaction and returns the rows it produced.
    ///
    /// - Throws: ``TodoStoreError/unitOfWorkFinished(requestID:)`` after teardown, or the database's error.
    public func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        guard !isFinished else { throw TodoStoreError.unitOfWorkFinished(requestID: requestID) }
        return try await lease.query(sql, binds)
    }

    /// Commits the transaction if the request succeeded, rolls it back if not, and gives the connection back.
    ///
    /// Weft calls this when the request's scope ends. The connection goes back to the database whatever
    /// happens; if committing fails the transaction is rolled back and the error is thrown, so that the scope's
    /// `end()` reports it (the middleware then logs it and answers 500).
    public func tearDown() async throws {
        guard !isFinished else { return }
        isFinished = true
        let commit = await request.succeeded
        do {
            _ = try await lease.query(commit ? "COMMIT TRANSACTION" : "ROLLBACK TRANSACTION")
        } catch {
            // A failed COMMIT can leave the transaction open; close it before the next request gets the
            // connection. Should that fail too, both errors are reported.
            var failure = error
            do {
                _ = try await lease.query("ROLLBACK TRANSACTION")
            } catch let rollbackError {
                failure = TodoStoreError.rollbackFailed(after: "\(error)", rollbackError: "\(rollbackError)")
            }
            await lease.release()
            await log.record(.unitOfWorkEnded(requestID: requestID, outcome: .failed))
            throw failure
        }
        await lease.release()
        await log.record(.unitOfWorkEnded(requestID: requestID, outcome: commit ? .committed : .rolledBack))
    }
}
