import HTTPTypes
import Hummingbird
import Logging
import Weft

/// The request context of the to-do server: Hummingbird's usual context plus the request's Weft scope.
public struct TodoRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, route parameters).
    public var coreContext: CoreRequestContextStorage
    /// The request's scope, set by ``RequestScopeMiddleware``; `nil` before it runs.
    public var scope: Container?

    /// Makes the context of a new request; Hummingbird calls this.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.scope = nil
    }

    /// The request's scope, from which handlers resolve their services.
    ///
    /// - Throws: A 500 error if ``RequestScopeMiddleware`` is not in front of the route, a setup mistake.
    public func requestScope() throws -> Container {
        guard let scope else {
            throw HTTPError(.internalServerError, message: "The route runs without a request scope.")
        }
        return scope
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: the id of the request, as the server's log and ``LifecycleLog`` know it.
    public static let requestID = Self("X-Request-ID")!
}

/// Gives each request a Weft scope of its own and ends it before the response goes out.
///
/// For each request the middleware makes a scope (`container.makeScope()`), so that services registered
/// `.inObjectScope(.scoped)`, such as ``UnitOfWork``, are made at most once per request and shared within it.
/// After the handler has answered, the middleware records whether the request succeeded (a status below 400)
/// in the scope's ``RequestInfo`` and ends the scope, which tears down what the request made: the unit of work
/// commits or rolls back then. The scope ends on every path, errors included.
///
/// A teardown failure is never dropped: it is logged through the request's logger. If the handler had
/// succeeded the response becomes 500 Internal Server Error, since its changes may not have been saved; if the
/// handler had failed, its own error response is kept.
public struct RequestScopeMiddleware: RouterMiddleware {
    /// The context the middleware works with.
    public typealias Context = TodoRequestContext

    /// The container each request's scope is made from.
    public let container: Container

    /// Makes the middleware for routes whose services come from `container`.
    public init(container: Container) {
        self.container = container
    }

    /// Runs the request inside a new scope and ends the scope before returning the response.
    public func handle(
        _ request: Request,
        context: TodoRequestContext,
        next: (Request, TodoRequestContext) async throws -> Response
    ) async throws -> Response {
        let scope = container.makeScope()
        var context = context
        context.scope = scope

        let outcome: Result<Response, any Error>
        let info: RequestInfo?
        do {
            let requestInfo = try await scope.async.require(RequestInfo.self)
            await requestInfo.start(id: context.id)
            info = requestInfo
            outcome = await Self.respond(to: request, context: context, next: next)
        } catch {
            // The scope could not give the request its information: answer 500, but still end the scope.
            info = nil
            outcome = .failure(error)
        }

        let succeeded = (try? outcome.get().status.code).map { $0 < 400 } ?? false
        await info?.finish(succeeded: succeeded)
        let teardownSucceeded = await Self.end(scope, logger: context.logger)

        var response: Response
        switch outcome {
        case .success(let answer) where succeeded && !teardownSucceeded:
            context.logger.error(
                "Answering 500 instead of \(answer.status.code): the request's scope failed to end"
            )
            response = try HTTPError(.internalServerError, message: "The request's changes could not be saved.")
                .response(from: request, context: context)
        case .success(let answer):
            response = answer
        case .failure(let error):
            // Not an HTTP error: Hummingbird answers 500 and logs it at debug level only, so say it here.
            context.logger.error("The request failed", metadata: ["error": .string(String(describing: error))])
            throw error
        }
        response.headers[.requestID] = context.id
        return response
    }

    /// Runs the rest of the chain, turning errors that are HTTP responses (such as 404) into those responses,
    /// so that the request still counts as answered, only not successfully.
    private static func respond(
        to request: Request,
        context: TodoRequestContext,
        next: (Request, TodoRequestContext) async throws -> Response
    ) async -> Result<Response, any Error> {
        do {
            return .success(try await next(request, context))
        } catch let error as any HTTPResponseError {
            do {
                return .success(try error.response(from: request, context: context))
            } catch {
                return .failure(error)
            }
        } catch {
            return .failure(error)
        }
    }

    /// Ends a request's scope; logs each teardown failure and returns whether there was none.
    private static func end(_ scope: Container, logger: Logger) async -> Bool {
        do {
            try await scope.end()
            return true
        } catch {
            logger.error(
                "Ending the request's scope failed",
                metadata: ["error": .string(String(describing: error))]
            )
            return false
        }
    }
}
