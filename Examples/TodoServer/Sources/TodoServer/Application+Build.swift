import Hummingbird
import Logging
import Weft
import WeftHummingbird
import WeftServiceLifecycle

/// Where the server listens and keeps its data.
public struct TodoServerConfiguration: Sendable {
    /// The address to bind, such as `127.0.0.1` or `0.0.0.0`.
    public var hostname: String
    /// The port to listen on; 0 lets the system pick a free one (the tests do that).
    public var port: Int
    /// The SQLite database file; made on first start.
    public var databasePath: String
    /// The logger of the server, its requests and its database.
    public var logger: Logger

    /// Makes a configuration; the defaults listen on `127.0.0.1:8080` and keep `todos.sqlite` in the working
    /// directory.
    public init(
        hostname: String = "127.0.0.1",
        port: Int = 8080,
        databasePath: String = "todos.sqlite",
        logger: Logger = Logger(label: "todo-server")
    ) {
        self.hostname = hostname
        self.port = port
        self.databasePath = databasePath
        self.logger = logger
    }
}

/// Makes the container of the to-do server, with every service registered and nothing made yet.
///
/// | Service | Lifetime | Factory |
/// | --- | --- | --- |
/// | ``LifecycleLog`` | `.container`: one for the server | sync |
/// | ``ServerStats`` | `.container`: one for the server | sync |
/// | ``Database`` | `.container`: one for the server, closed by `container.end()` | async: opens the file |
/// | ``RequestInfo`` | `.scoped`: one per request | sync |
/// | ``UnitOfWork`` | `.scoped`: one per request, ended with the request's scope | async: waits, begins |
/// | ``TodoRepository``, ``AuditTrail`` | transient: cheap views over the request's unit of work | async |
///
/// - Parameter configuration: Where the database file is and where to log.
public func makeTodoContainer(configuration: TodoServerConfiguration) -> Container {
    let container = Container()
    let path = configuration.databasePath
    let logger = configuration.logger

    container.register(LifecycleLog.self) { _ in LifecycleLog() }
        .inObjectScope(.container)
    container.register(Database.self) { r async throws in
        try await Database.open(path: path, log: try await r.require(LifecycleLog.self), logger: logger)
    }
    .inObjectScope(.container)

    container.register(ServerStats.self) { _ in ServerStats() }
        .inObjectScope(.container)
    container.register(RequestInfo.self) { r in RequestInfo(stats: try r.require(ServerStats.self)) }
        .inObjectScope(.scoped)
    container.register(UnitOfWork.self) { r async throws in
        try await UnitOfWork.begin(
            database: try await r.require(Database.self),
            request: try await r.require(RequestInfo.self),
            log: try await r.require(LifecycleLog.self)
        )
    }
    .inObjectScope(.scoped)

    container.register(TodoRepository.self) { r async throws in
        TodoRepository(unitOfWork: try await r.require(UnitOfWork.self))
    }
    .inObjectScope(.transient)
    container.register(AuditTrail.self) { r async throws in
        AuditTrail(unitOfWork: try await r.require(UnitOfWork.self))
    }
    .inObjectScope(.transient)
    return container
}

/// The type of the to-do server's application.
public typealias TodoApplication = Application<RouterResponder<TodoRequestContext>>

/// Builds the to-do server around `container`, which should come from ``makeTodoContainer(configuration:)``
/// (a test may register replacements into it first).
///
/// Each request gets a scope of its own from WeftHummingbird's `WeftScopeMiddleware`, ended as soon as the
/// handler has answered and before the response goes out (`.beforeResponse`): ending it commits or rolls back
/// the request's ``UnitOfWork``, and a failed commit turns a success into 500. ``RequestInfoMiddleware`` tells
/// the scope whether the request succeeded; ``RequestIDMiddleware`` adds the request id to every answer. The
/// application opens the database before it accepts connections and, through WeftServiceLifecycle's
/// `ContainerService`, ends `container` once the HTTP server has stopped, which closes the database. Run it
/// with `try await app.runService()`.
///
/// - Parameters:
///   - configuration: Where to listen and log.
///   - container: The container of the server's services; the application ends it when it stops.
public func buildApplication(configuration: TodoServerConfiguration, container: Container) -> TodoApplication {
    let router = Router(context: TodoRequestContext.self)
    TodoRoutes.addStats(to: router, container: container)
    router.add(middleware: RequestIDMiddleware(stats: try? container.require(ServerStats.self)))
    router.add(middleware: WeftScopeMiddleware(container: container, ending: .beforeResponse))
    router.add(middleware: RequestInfoMiddleware())
    TodoRoutes.add(to: router)

    var app = Application(
        router: router,
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port)),
        logger: configuration.logger
    )
    // The application's services are shut down in reverse order, after the HTTP server has finished its
    // requests: only then does the container end, so no request ever finds the database closed.
    app.addServices(ContainerService(container, logger: configuration.logger))
    app.beforeServerStarts {
        // Open the database now, so that a bad path stops the server at start instead of failing requests.
        _ = try await container.async.require(Database.self)
    }
    return app
}

/// Builds the to-do server with a new container (see ``makeTodoContainer(configuration:)``).
public func buildApplication(configuration: TodoServerConfiguration) -> TodoApplication {
    buildApplication(configuration: configuration, container: makeTodoContainer(configuration: configuration))
}
