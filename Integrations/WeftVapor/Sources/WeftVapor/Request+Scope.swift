import Vapor
import Weft

extension Request {
    /// The request's Weft scope, which ``WeftScopeMiddleware`` makes from the application's container and ends
    /// when the request has been answered.
    ///
    /// ```swift
    /// app.get("todos") { req in
    ///     try await req.require(TodoRepository.self).all()
    /// }
    /// ```
    ///
    /// - Throws: `Abort(.internalServerError)` when no ``WeftScopeMiddleware`` runs in front of the route, a
    ///   set-up mistake that the request's log then names.
    public var scope: Container {
        get throws {
            guard let scope = storage[RequestScopeKey.self] else {
                logger.error("A route resolved from the request's scope, but no WeftScopeMiddleware runs before it")
                throw Abort(.internalServerError)
            }
            return scope
        }
    }

    /// Resolves `serviceType` (under `name`) from the request's scope, from async code: async factories run,
    /// `.scoped` services are the request's own.
    ///
    /// - Throws: A ``Weft/ResolutionError`` when it cannot be made; `Abort(.internalServerError)` without a
    ///   ``WeftScopeMiddleware`` in front of the route.
    public func require<Service>(_ serviceType: Service.Type = Service.self, name: String? = nil) async throws
        -> Service
    {
        try await scope.async.require(serviceType, name: name)
    }

    /// Sets the request's scope; ``WeftScopeMiddleware`` calls this.
    func setScope(_ scope: Container) {
        storage[RequestScopeKey.self] = scope
    }
}

private enum RequestScopeKey: StorageKey {
    typealias Value = Container
}
