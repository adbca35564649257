import Hummingbird
import Weft

/// A Hummingbird request context that carries the request's Weft scope, which ``WeftScopeMiddleware`` makes
/// and ends.
///
/// Adopt it with one stored property:
///
/// ```swift
/// struct AppRequestContext: WeftRequestContext {
///     var coreContext: CoreRequestContextStorage
///     var weftScope: Container?
///
///     init(source: ApplicationRequestContextSource) {
///         coreContext = .init(source: source)
///     }
/// }
/// ```
///
/// and resolve in a route in one line:
///
/// ```swift
/// router.get("todos") { _, context in
///     try await context.require(TodoRepository.self).all()
/// }
/// ```
public protocol WeftRequestContext: RequestContext {
    /// The request's scope, set by ``WeftScopeMiddleware`` for the routes behind it; nil before it runs.
    var weftScope: Container? { get set }
}

extension WeftRequestContext {
    /// The request's scope.
    ///
    /// - Throws: `HTTPError(.internalServerError)` when no ``WeftScopeMiddleware`` runs in front of the route, a
    ///   set-up mistake that the server's log then names.
    public var scope: Container {
        get throws {
            guard let weftScope else {
                logger.error("A route resolved from the request's scope, but no WeftScopeMiddleware runs before it")
                throw HTTPError(.internalServerError)
            }
            return weftScope
        }
    }

    /// Resolves `serviceType` (under `name`) from the request's scope, from async code: async factories run,
    /// `.scoped` services are the request's own.
    ///
    /// - Throws: A ``Weft/ResolutionError`` when it cannot be made; `HTTPError(.internalServerError)` without a
    ///   ``WeftScopeMiddleware`` in front of the route.
    public func require<Service>(_ serviceType: Service.Type = Service.self, name: String? = nil) async throws
        -> Service
    {
        try await scope.async.require(serviceType, name: name)
    }
}

/// A request context with nothing but Hummingbird's basics and the request's Weft scope, for applications that
/// need no context of their own.
public struct BasicWeftRequestContext: WeftRequestContext {
    /// Hummingbird's per-request storage (logger, route parameters).
    public var coreContext: CoreRequestContextStorage
    /// The request's scope (see ``WeftRequestContext/weftScope``).
    public var weftScope: Container?

    /// Makes the context of a new request; Hummingbird calls this.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
