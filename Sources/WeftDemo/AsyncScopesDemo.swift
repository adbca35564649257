// Section 8: async factories and scopes. An async resolve shares its object graph across suspension
// points, a singleton is made once for many concurrent tasks, a per-request scope tears down its unit
// of work when it ends, a failing teardown is reported, and a singleton may not keep a scoped service.

import Foundation
import Weft

/// The types of the async and scopes section.
enum AsyncScopes {
    /// A thread-safe list of lines that factories and teardowns add to.
    final class Journal: @unchecked Sendable {
        private let lock = Guard()
        private var lines: [String] = []

        /// Adds `line`.
        func add(_ line: String) {
            lock.withLock { lines.append(line) }
        }

        /// The lines added so far, in order.
        var all: [String] {
            lock.withLock { lines }
        }

        /// How many lines start with `prefix`.
        func count(startingWith prefix: String) -> Int {
            all.filter { $0.hasPrefix(prefix) }.count
        }
    }

    /// A graph-scoped connection, made by an async factory.
    final class Connection: Sendable {}

    /// Two services that each need the connection, each made after a suspension point.
    final class Catalog: Sendable {
        let connection: Connection
        init(connection: Connection) { self.connection = connection }
    }

    final class Orders: Sendable {
        let connection: Connection
        init(connection: Connection) { self.connection = connection }
    }

    final class Storefront: Sendable {
        let catalog: Catalog
        let orders: Orders
        init(catalog: Catalog, orders: Orders) {
            self.catalog = catalog
            self.orders = orders
        }
    }

    /// A process-wide singleton that takes a while to open.
    actor Database: AsyncTeardown {
        let journal: Journal
        init(journal: Journal) { self.journal = journal }
        func tearDown() async throws { journal.add("database closed") }
    }

    /// The per-request unit of work: commits when its scope ends.
    actor UnitOfWork: AsyncTeardown {
        let journal: Journal
        let request: Int
        init(journal: Journal, request: Int) {
            self.journal = journal
            self.request = request
        }
        func tearDown() async throws { journal.add("unit of work \(request) committed") }
    }

    /// A per-request audit log, made before the unit of work, so torn down after it.
    final class AuditLog: Teardown, Sendable {
        let journal: Journal
        init(journal: Journal) { self.journal = journal }
        func tearDown() throws { journal.add("audit log flushed") }
    }

    /// A per-request service whose teardown fails.
    final class MailOutbox: Teardown, Sendable {
        struct SendFailed: Error, CustomStringConvertible {
            var description: String { "SMTP server unreachable" }
        }

        func tearDown() throws { throw SendFailed() }
    }

    /// A singleton that would keep one request's unit of work.
    final class ReportCache: Sendable {
        let work: UnitOfWork
        init(work: UnitOfWork) { self.work = work }
    }
}

private typealias Journal = AsyncScopes.Journal

/// Runs the async and scopes scenarios.
func runAsyncScopesDemo() async throws {
    heading("8. Async factories and per-request scopes")

    try await graphAcrossSuspensionPoints()
    try await singletonUnderConcurrency()
    try await perRequestScope()
    try await failingTeardown()
    try await captiveSingleton()
}

/// One async resolve is one object graph, also across `await` and `async let`.
private func graphAcrossSuspensionPoints() async throws {
    typealias Connection = AsyncScopes.Connection
    typealias Catalog = AsyncScopes.Catalog
    typealias Orders = AsyncScopes.Orders
    typealias Storefront = AsyncScopes.Storefront

    let journal = Journal()
    let container = Container()
    container.register(Connection.self) { _ in
        await Task.yield()
        journal.add("connection")
        return Connection()
    }
    container.register(Catalog.self) { r in
        await Task.yield()
        return Catalog(connection: try await r.require(Connection.self))
    }
    container.register(Orders.self) { r in
        await Task.yield()
        return Orders(connection: try await r.require(Connection.self))
    }
    container.register(Storefront.self) { r in
        async let catalog = r.require(Catalog.self)
        async let orders = r.require(Orders.self)
        return Storefront(catalog: try await catalog, orders: try await orders)
    }

    scenario(
        "Storefront resolves Catalog and Orders in two child tasks (async let); both need the graph-scoped Connection:")
    let storefront = try await container.async.require(Storefront.self)
    say(
        "catalog and orders share one Connection: \(yesNo(storefront.catalog.connection === storefront.orders.connection))"
    )
    say("Connection factory ran \(journal.count(startingWith: "connection"))x")
    let again = try await container.async.require(Storefront.self)
    say(
        "a second resolve is a new graph with a new Connection: \(yesNo(again.catalog.connection !== storefront.catalog.connection))"
    )
}

/// Fifty tasks ask for a `.container` service with a slow async factory at the same time.
private func singletonUnderConcurrency() async throws {
    typealias Database = AsyncScopes.Database

    let journal = Journal()
    let container = Container()
    container.register(Database.self) { _ in
        journal.add("open")
        try await Task.sleep(nanoseconds: 20_000_000)
        return Database(journal: journal)
    }.inObjectScope(.container)

    scenario("50 concurrent tasks ask for the .container Database, whose async factory takes 20 ms:")
    let distinct = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
        for _ in 0..<50 {
            group.addTask { ObjectIdentifier(try await container.async.require(Database.self)) }
        }
        var seen = Set<ObjectIdentifier>()
        for try await id in group { seen.insert(id) }
        return seen.count
    }
    say("factory ran \(journal.count(startingWith: "open"))x; distinct instances handed out: \(distinct)")
    try await container.end()
    say("container.end() at shutdown: \(journal.all.last ?? "nothing")")
}

/// Two requests, each with its own scope, unit of work and audit log, torn down newest first.
private func perRequestScope() async throws {
    typealias UnitOfWork = AsyncScopes.UnitOfWork
    typealias AuditLog = AsyncScopes.AuditLog

    let journal = Journal()
    let container = Container()
    let requests = Counter()
    container.register(AuditLog.self) { _ in AuditLog(journal: journal) }.inObjectScope(.scoped)
    container.register(UnitOfWork.self) { r in
        _ = try await r.require(AuditLog.self)
        return UnitOfWork(journal: journal, request: requests.next())
    }.inObjectScope(.scoped)

    scenario("Two requests, each in its own scope; UnitOfWork is .scoped and needs the .scoped AuditLog:")
    for _ in 1...2 {
        let scope = container.makeScope()
        let work = try await scope.async.require(UnitOfWork.self)
        let same = try await scope.async.require(UnitOfWork.self)
        say("request \(work.request): one UnitOfWork in the scope: \(yesNo(work === same))")
        let before = journal.all.count
        try await scope.end()
        say(
            "request \(work.request): scope.end() tore down, newest first: "
                + journal.all[before...].joined(separator: ", "))
    }

    let ended = container.makeScope()
    try await ended.end()
    do {
        _ = try await ended.async.require(UnitOfWork.self)
    } catch let error as ResolutionError {
        say("a scope that has ended makes no more: \(error.identifier)")
    }
}

/// A scope with a teardown that throws and one that works: both run, and the failure comes back at the end.
private func failingTeardown() async throws {
    typealias MailOutbox = AsyncScopes.MailOutbox
    typealias AuditLog = AsyncScopes.AuditLog

    let journal = Journal()
    let container = Container()
    container.register(MailOutbox.self) { _ in MailOutbox() }.inObjectScope(.scoped)
    container.register(AuditLog.self) { _ in AuditLog(journal: journal) }.inObjectScope(.scoped)

    scenario("A scope's MailOutbox fails to tear down; its AuditLog is torn down all the same:")
    let scope = container.makeScope()
    _ = try scope.require(MailOutbox.self)
    _ = try scope.require(AuditLog.self)
    do {
        try await scope.end()
    } catch let error as TeardownError {
        say("audit log: \(journal.all.first ?? "not torn down")")
        say(String(describing: error))
    }
}

/// A singleton that would keep one request's unit of work is refused.
private func captiveSingleton() async throws {
    typealias UnitOfWork = AsyncScopes.UnitOfWork
    typealias ReportCache = AsyncScopes.ReportCache

    let container = Container()
    container.register(UnitOfWork.self) { _ in UnitOfWork(journal: Journal(), request: 0) }
        .inObjectScope(.scoped)
    container.register(ReportCache.self) { r in
        await Task.yield()
        return ReportCache(work: try await r.require(UnitOfWork.self))
    }.inObjectScope(.container)

    scenario("Before any request, `try await container.async.verify()` builds the async factories and finds it:")
    let report = await container.async.verificationReport()
    printIndented(report.description, indent: "    ")

    scenario("ReportCache is a .container singleton made with the .scoped UnitOfWork:")
    let scope = container.makeScope()
    do {
        _ = try await scope.async.require(ReportCache.self)
        say("UNEXPECTED: it was made")
    } catch let error as ResolutionError {
        printIndented(error.description, indent: "    ")
    }
    try await scope.end()
}

/// Hands out 1, 2, 3... to concurrent callers.
private final class Counter: @unchecked Sendable {
    private let lock = Guard()
    private var last = 0

    func next() -> Int {
        lock.withLock {
            last += 1
            return last
        }
    }
}

/// A lock around the demo's few shared values.
private final class Guard: @unchecked Sendable {
    private let lock = NSLock()

    func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
