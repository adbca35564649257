import Foundation
import Logging
import Vapor
import Weft

/// What the services of a test did, counted across requests and threads.
final class Ledger: @unchecked Sendable {
    private let lock = NSLock()
    private var madeCount = 0
    private var tornDown: [Int] = []

    var made: Int { lock.withLock { madeCount } }
    var tornDownIDs: [Int] { lock.withLock { tornDown } }

    /// Counts one more instance made; returns its number.
    func make() -> Int {
        lock.withLock {
            madeCount += 1
            return madeCount
        }
    }

    func recordTeardown(of id: Int) { lock.withLock { tornDown.append(id) } }
}

/// A request's unit of work: one per scope, torn down when the request's scope ends.
final class UnitOfWork: Teardown, @unchecked Sendable {
    let id: Int
    private let ledger: Ledger

    init(ledger: Ledger) {
        self.ledger = ledger
        id = ledger.make()
    }

    func tearDown() throws { ledger.recordTeardown(of: id) }
}

/// A scoped service whose teardown always fails.
final class FailingCommit: AsyncTeardown, @unchecked Sendable {
    struct CommitFailed: Error {}
    func tearDown() async throws { throw CommitFailed() }
}

/// An application-wide service torn down when the application shuts down.
final class ConnectionPool: AsyncTeardown, @unchecked Sendable {
    private let ledger: Ledger
    let id: Int

    init(ledger: Ledger) {
        self.ledger = ledger
        id = ledger.make()
    }

    func tearDown() async throws { ledger.recordTeardown(of: id) }
}

/// The log entries of the requests of a test: a middleware in front of the others gives each request a logger
/// that keeps its entries here.
final class LogStore: @unchecked Sendable, LogHandler {
    private let lock = NSLock()
    private var entries: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var errors: [(message: String, metadata: Logger.Metadata)] {
        lock.withLock { entries.filter { $0.level >= .error }.map { ($0.message, $0.metadata) } }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { entries.append((event.level, "\(event.message)", event.metadata ?? [:])) }
    }
}

/// Gives each request a logger whose entries go to a ``LogStore``.
struct CollectingLoggerMiddleware: AsyncMiddleware {
    let store: LogStore

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        request.logger = Logger(label: "weft-vapor-tests") { _ in store }
        return try await next.respond(to: request)
    }
}

extension Application {
    /// Serves on a free loopback port; returns the base URL.
    func startServing() async throws -> String {
        http.server.configuration.hostname = "127.0.0.1"
        http.server.configuration.port = 0
        try await server.start(address: .hostname("127.0.0.1", port: 0))
        guard let port = http.server.shared.localAddress?.port else {
            throw Abort(.internalServerError, reason: "the server has no local port")
        }
        return "http://127.0.0.1:\(port)"
    }
}
