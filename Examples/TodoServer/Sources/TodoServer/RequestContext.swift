import HTTPTypes
import Hummingbird
import Logging
import Weft
import WeftHummingbird

/// The request context of the to-do server: Hummingbird's usual context plus the request's Weft scope, which
/// WeftHummingbird's `WeftScopeMiddleware` sets and ends.
public struct TodoRequestContext: WeftRequestContext {
    /// Hummingbird's per-request storage (logger, route parameters).
    public var coreContext: CoreRequestContextStorage
    /// The request's scope; `nil` before the scope middleware runs.
    public var weftScope: Container?

    /// Makes the context of a new request; Hummingbird calls this.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: the id of the request, as the server's log and ``LifecycleLog`` know it.
    public static let requestID = Self("X-Request-ID")!
}

/// Sends every answer with the request's id in `X-Request-ID`, error answers included, and counts it in
/// ``ServerStats``; the outermost middleware, so that an answer the scope middleware turned into 500 carries
/// the id too.
public struct RequestIDMiddleware: RouterMiddleware {
    /// The context the middleware works with.
    public typealias Context = TodoRequestContext
    /// Where answered requests are counted; nil counts nothing.
    public let stats: ServerStats?

    /// Makes the middleware, counting answers in `stats` when given.
    public init(stats: ServerStats? = nil) {
        self.stats = stats
    }

    /// Answers as the rest of the chain does, with the request id added.
    public func handle(
        _ request: Request,
        context: TodoRequestContext,
        next: (Request, TodoRequestContext) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            // Not an HTTP error: Hummingbird answers 500 and logs it at debug level only, so say it here.
            context.logger.error("The request failed", metadata: ["error": .string(String(describing: error))])
            stats?.requestAnswered(status: 500)
            throw error
        }
        response.headers[.requestID] = context.id
        stats?.requestAnswered(status: response.status.code)
        return response
    }
}

/// Tells the request's ``RequestInfo`` its id before the handler runs and, once the handler has answered,
/// whether it succeeded (a status below 400): the ``UnitOfWork`` reads both when the scope ends, to commit or
/// roll back. Runs behind the scope middleware, inside the request's scope.
public struct RequestInfoMiddleware: RouterMiddleware {
    /// The context the middleware works with.
    public typealias Context = TodoRequestContext

    /// Makes the middleware.
    public init() {}

    /// Runs the handler between the two reports to the request's ``RequestInfo``.
    public func handle(
        _ request: Request,
        context: TodoRequestContext,
        next: (Request, TodoRequestContext) async throws -> Response
    ) async throws -> Response {
        let info = try await context.require(RequestInfo.self)
        await info.start(id: context.id)
        // A thrown error leaves the request unsuccessful: its unit of work rolls back.
        let response = try await next(request, context)
        await info.finish(succeeded: response.status.code < 400)
        return response
    }
}
