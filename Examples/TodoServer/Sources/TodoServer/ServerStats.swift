import Foundation
import Hummingbird
import Weft

/// Counts what the server did, for the load script (`Scripts/load.sh`) to check from outside: every request
/// answered, every request's scope made and ended, no unit of work or database connection left open, no error
/// answer. Served at `GET /stats`, outside the request scopes, so that asking does not change the counts.
public final class ServerStats: @unchecked Sendable {
    private let lock = NSLock()
    private var counts = Counts()

    /// What the server counted; `GET /stats` answers with it.
    public struct Counts: ResponseCodable, Equatable, Sendable {
        /// Requests answered (`/stats` itself not counted).
        public var requests = 0
        /// Answers with a status of 500 or more.
        public var serverErrors = 0
        /// Request scopes that made their ``RequestInfo`` (every request does, first).
        public var scopesMade = 0
        /// ``RequestInfo`` instances torn down: request scopes ended.
        public var scopesEnded = 0
        /// Units of work that began and ended, and those still open (from ``LifecycleLog``).
        public var unitsOfWorkBegan = 0
        public var unitsOfWorkEnded = 0
        public var unitsOfWorkOpen = 0
        /// Whether a unit of work holds the database connection, and how many wait for it.
        public var connectionLeased = false
        public var connectionWaiters = 0
    }

    /// Makes a record with every count at 0.
    public init() {}

    /// The counts so far.
    public var current: Counts { lock.withLock { counts } }

    /// Counts an answered request and whether it was a server error.
    public func requestAnswered(status: Int) {
        lock.withLock {
            counts.requests += 1
            if status >= 500 { counts.serverErrors += 1 }
        }
    }

    /// Counts a request scope that made its ``RequestInfo``.
    public func scopeMade() { lock.withLock { counts.scopesMade += 1 } }

    /// Counts a request scope whose ``RequestInfo`` was torn down.
    public func scopeEnded() { lock.withLock { counts.scopesEnded += 1 } }
}

extension TodoRoutes {
    /// Adds `GET /stats`, the counts of ``ServerStats`` with the database's and the lifecycle log's, to `router`.
    public static func addStats(to router: Router<TodoRequestContext>, container: Container) {
        router.get("stats") { _, _ -> ServerStats.Counts in
            var counts = try container.require(ServerStats.self).current
            let log = try container.require(LifecycleLog.self)
            counts.unitsOfWorkBegan = await log.unitsOfWorkBegan
            counts.unitsOfWorkEnded = await log.unitsOfWorkEnded.values.reduce(0, +)
            counts.unitsOfWorkOpen = await log.unitsOfWorkOpen
            let usage = try await container.async.require(Database.self).usage
            (counts.connectionLeased, counts.connectionWaiters) = (usage.leased, usage.waiting)
            return counts
        }
    }
}
