import Hummingbird
import Logging
import ServiceLifecycle

/// The request context of the hand-wired server: the request's services, made by ``HandWiredRequestMiddleware``.
public struct HandWiredRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, route parameters).
    public var coreContext: CoreRequestContextStorage
    /// The request's services; nil before the middleware runs.
    public var services: HandWiredRequest?

    /// Makes the context of a new request; Hummingbird calls this.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// The request's unit of work, begun on first use.
    func unitOfWork() async throws -> UnitOfWork {
        guard let services else { throw HTTPError(.internalServerError) }
        return try await services.unitOfWork()
    }
}

/// One request's services wired by hand: what the Weft server's scope gives a request, written out. The unit of
/// work begins when a handler first needs it and ends with the request, as the `.scoped` one does.
public final class HandWiredRequest: @unchecked Sendable {
    let info: RequestInfo
    let database: Database
    let log: LifecycleLog
    private var work: UnitOfWork?

    init(info: RequestInfo, database: Database, log: LifecycleLog) {
        (self.info, self.database, self.log) = (info, database, log)
    }

    /// The request's unit of work, begun on first use. One handler task uses it at a time.
    func unitOfWork() async throws -> UnitOfWork {
        if let work { return work }
        let made = try await UnitOfWork.begin(database: database, request: info, log: log)
        work = made
        return made
    }

    /// Ends what the request made: the unit of work commits or rolls back, then the request's information.
    func end() async throws {
        defer { info.tearDown() }
        try await work?.tearDown()
    }
}

/// Makes each request's ``HandWiredRequest`` and ends it before the response goes out, as the Weft server's
/// scope middlewares do together.
struct HandWiredRequestMiddleware: RouterMiddleware {
    typealias Context = HandWiredRequestContext
    let database: Database
    let log: LifecycleLog
    let stats: ServerStats

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let services = HandWiredRequest(info: RequestInfo(stats: stats), database: database, log: log)
        await services.info.start(id: context.id)
        var context = context
        context.services = services
        var response: Response
        do {
            response = try await next(request, context)
            await services.info.finish(succeeded: response.status.code < 400)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        do {
            try await services.end()
        } catch {
            context.logger.error("Ending the request failed", metadata: ["error": "\(error)"])
            response = Response(status: .internalServerError)
        }
        response.headers[.requestID] = context.id
        stats.requestAnswered(status: response.status.code)
        return response
    }
}

/// The to-do server's load routes (`GET /todos/:id`, `POST /todos`, `GET /stats`) with every dependency wired by
/// hand, no container: the baseline the load script measures the Weft server against.
///
/// - Parameter configuration: Where to listen, keep the database, and log.
public func buildHandWiredApplication(configuration: TodoServerConfiguration) async throws
    -> some ApplicationProtocol
{
    let log = LifecycleLog()
    let stats = ServerStats()
    let database = try await Database.open(path: configuration.databasePath, log: log, logger: configuration.logger)
    let router = Router(context: HandWiredRequestContext.self)
    router.get("stats") { _, _ -> ServerStats.Counts in
        var counts = stats.current
        counts.unitsOfWorkBegan = await log.unitsOfWorkBegan
        counts.unitsOfWorkEnded = await log.unitsOfWorkEnded.values.reduce(0, +)
        counts.unitsOfWorkOpen = await log.unitsOfWorkOpen
        (counts.connectionLeased, counts.connectionWaiters) = await database.usage
        return counts
    }
    router.add(middleware: HandWiredRequestMiddleware(database: database, log: log, stats: stats))
    router.get("todos/:id") { _, context -> Todo in
        let id = try context.parameters.require("id", as: Int.self)
        let todos = TodoRepository(unitOfWork: try await context.unitOfWork())
        guard let todo = try await todos.find(id: id) else { throw HTTPError(.notFound) }
        return todo
    }
    router.post("todos") { request, context -> EditedResponse<Todo> in
        let title = try TitleRules.validated(try await request.decode(as: NewTodo.self, context: context).title)
        let work = try await context.unitOfWork()
        let todo = try await TodoRepository(unitOfWork: work).create(title: title)
        try await AuditTrail(unitOfWork: work).record(.created, todoID: todo.id)
        return EditedResponse(status: .created, headers: [.location: "/todos/\(todo.id)"], response: todo)
    }
    var app = Application(
        router: router,
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port)),
        logger: configuration.logger
    )
    app.addServices(DatabaseClosingService(database: database))
    return app
}

/// Closes the hand-wired server's database once the HTTP server has stopped.
private struct DatabaseClosingService: Service {
    let database: Database

    func run() async throws {
        try? await gracefulShutdown()
        try await database.tearDown()
    }
}
