import Hummingbird
import Logging
import Weft

/// Gives each request a Weft scope of its own (``Weft/Container/makeScope()``), reachable from the request
/// context, and ends it when the request is done, which tears down what the request made.
///
/// ```swift
/// let router = Router(context: AppRequestContext.self)
/// router.add(middleware: WeftScopeMiddleware(container: container))
/// ```
///
/// When the scope ends is chosen with ``Ending``:
///
/// - ``Ending/afterResponse`` (the default): once the response body has been written to the client, so that a
///   streaming body can still use the request's services; when the handler throws; and when the client went
///   away before the body was written. A teardown failure is logged through the request's logger at `.error`
///   (the response is already sent).
/// - ``Ending/beforeResponse``: as soon as the handler has answered, before the response goes out, for services
///   whose teardown finishes the request's work (committing a transaction): a teardown failure then turns a
///   successful response into 500 Internal Server Error, since the request's work may not have been saved, and
///   is logged the same way.
///
/// Either way every scope is ended exactly once, and its teardowns run even when the request's task was
/// cancelled (a synchronous one on the ending task, an async one in a task of its own, each within
/// ``Weft/Container/defaultTeardownTimeout``).
public struct WeftScopeMiddleware<Context: WeftRequestContext>: RouterMiddleware {
    /// When a request's scope ends.
    public enum Ending: Sendable {
        /// After the response body has been written (or the request failed, or the client went away).
        case afterResponse
        /// As soon as the handler has answered, before the response goes out.
        case beforeResponse
    }

    /// The container each request's scope is made from.
    public let container: Container
    /// When each request's scope ends.
    public let ending: Ending

    /// Makes the middleware for routes whose services come from `container`.
    ///
    /// - Parameters:
    ///   - container: The application's container.
    ///   - ending: When each request's scope ends: after the response has been written, unless told otherwise.
    public init(container: Container, ending: Ending = .afterResponse) {
        self.container = container
        self.ending = ending
    }

    /// Runs the rest of the chain with a new scope in the context, and ends the scope as ``ending`` says.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let scope = ScopeEnding(scope: container.makeScope(), logger: context.logger)
        var context = context
        context.weftScope = scope.scope
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            await scope.end()
            throw error
        }
        switch ending {
        case .afterResponse:
            response.body = scope.endAfterWriting(response.body)
        case .beforeResponse:
            let ended = await scope.end()
            if !ended, response.status.code < 400 {
                context.logger.error(
                    "Answering 500 instead of \(response.status.code): the request's scope failed to end"
                )
                throw HTTPError(.internalServerError, message: "The request's work could not be finished.")
            }
        }
        return response
    }
}
