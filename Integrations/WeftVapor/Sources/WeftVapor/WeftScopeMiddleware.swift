import Vapor
import Weft

/// Gives each request a Weft scope of its own (``Weft/Container/makeScope()``), reachable as
/// `req.scope`, and ends it when the request has been answered, which tears down what the request made.
///
/// ```swift
/// app.container = container
/// app.middleware.use(WeftScopeMiddleware())
/// ```
///
/// The scope ends as soon as the route has answered or thrown, before the response goes out: Vapor gives a
/// middleware no moment after the response has been written. So a teardown that finishes the request's work
/// (committing a transaction) has run before the client sees the answer, and one that fails turns a successful
/// response into 500 Internal Server Error, since the request's work may not have been saved; the failure is
/// logged through the request's logger. A streaming body resolves what it needs before the route returns.
///
/// Every scope is ended exactly once, also when the route throws, and its teardowns run even when the request's
/// task was cancelled (they run in a task of their own, each within ``Weft/Container/defaultTeardownTimeout``).
public struct WeftScopeMiddleware: AsyncMiddleware {
    /// The container each request's scope is made from; nil for the application's (`app.container`).
    public let container: Container?

    /// Makes the middleware.
    ///
    /// - Parameter container: The container each request's scope is made from; by default the application's
    ///   (`app.container`).
    public init(container: Container? = nil) {
        self.container = container
    }

    /// Runs the rest of the chain with a new scope on the request, then ends the scope.
    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let scope = (container ?? request.application.container).makeScope()
        request.setScope(scope)
        let response: Response
        do {
            response = try await next.respond(to: request)
        } catch {
            await Self.end(scope, logger: request.logger)
            throw error
        }
        let ended = await Self.end(scope, logger: request.logger)
        if !ended, response.status.code < 400 {
            request.logger.error(
                "Answering 500 instead of \(response.status.code): the request's scope failed to end"
            )
            throw Abort(.internalServerError, reason: "The request's work could not be finished.")
        }
        return response
    }

    /// Ends `scope` in a task of its own, which the request's cancellation does not reach (a cancelled `end`
    /// would report its teardowns as interrupted instead of waiting for them); logs and returns false on failure.
    @discardableResult
    private static func end(_ scope: Container, logger: Logger) async -> Bool {
        do {
            try await Task { try await scope.end() }.value
            return true
        } catch {
            logger.error("Ending the request's scope failed", metadata: TeardownFailureMetadata.of(error))
            return false
        }
    }
}
