/// The closure of an `async` decorator: receives an ``AsyncResolver`` and the instance to wrap, and runs where its
/// resolve runs.
typealias AsyncDecoration<Service> =
    nonisolated(nonsending) @Sendable (AsyncResolver, Service) async throws
    -> Service

extension Container {
    /// Wraps every instance of `serviceType` (under `name`) that this container makes in what the `async`
    /// `decorator` returns; chosen over the synchronous ``decorate(_:name:decorator:)`` when the closure awaits.
    ///
    /// ```swift
    /// container.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)
    /// container.decorate(Repository.self) { r, inner in
    ///     CachingRepository(inner, cache: try await r.require(RemoteCache.self))
    /// }
    /// let repository = try await container.async.require(Repository.self)   // a CachingRepository
    /// ```
    ///
    /// An async decorator follows the rules of a synchronous one (declaration order, the scope keeps the
    /// decorated instance, names, children, forwarded types, runtime arguments), and one of its own:
    /// **a service with an async decorator resolves from async code only**, as one with an `async` factory does:
    /// with `container.async`, or the ``AsyncResolver`` an async factory receives. The factory (synchronous or
    /// `async`) runs, then every decorator in declaration order, the synchronous ones too. A synchronous resolve
    /// that would have to make the instance fails with ``ResolutionError/Reason/requiresAsync`` instead of
    /// skipping the decorator (a `.container` instance an async resolve already made and decorated is returned).
    /// `try await container.async.verify()` runs the decorator and checks its dependencies.
    ///
    /// - Parameters:
    ///   - serviceType: The service to decorate, as it is registered.
    ///   - name: The registration name of the service to decorate.
    ///   - decorator: Receives an async resolver and the instance the factory (or the previous decorator) made,
    ///     and returns the instance to use instead; it may suspend and throw.
    public func decorate<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        decorator: nonisolated(nonsending) @escaping @Sendable (AsyncResolver, Service) async throws -> Service
    ) {
        add(Decorator(async: decorator), of: serviceType, name: name)
    }

    /// Wraps every instance of the type the `async` decorator returns that this container makes; the same as
    /// `decorate(_:name:decorator:)` with an async closure and the type inferred.
    ///
    /// ```swift
    /// container.decorate { (r, inner: any Repository) in
    ///     CachingRepository(inner, cache: try await r.require(RemoteCache.self))
    /// }
    /// ```
    public func decorate<Service>(
        name: String? = nil,
        decorator: nonisolated(nonsending) @escaping @Sendable (AsyncResolver, Service) async throws -> Service
    ) {
        add(Decorator(async: decorator), of: Service.self, name: name)
    }
}

extension Decorator {
    /// `instance` wrapped in `decorators`, in order, from async code: an async decorator is awaited, a
    /// synchronous one runs inside the resolver's graph (see ``decorate(from:_:)``).
    nonisolated(nonsending) static func apply(
        _ decorators: [Decorator<Service>],
        to instance: Service,
        resolver: AsyncResolver
    ) async throws -> Service {
        var instance = instance
        for decorator in decorators {
            if let decorateAsync = decorator.decorateAsync {
                instance = try await decorateAsync(resolver, instance)
            } else {
                instance = try await decorator.decorate(from: resolver, instance)
            }
        }
        return instance
    }
}

/// Holds a synchronous factory for an async one to call.
private final class SynchronousFactory<Service>: @unchecked Sendable {
    let make: (any Resolver) throws -> Service

    init(_ make: @escaping (any Resolver) throws -> Service) {
        self.make = make
    }
}

extension ServiceEntry {
    /// Wraps this registration's factory, `inner` (its factory with any earlier decorators), in `decorators`, of
    /// which at least one is `async`: a synchronous resolve fails with ``ResolutionError/Reason/requiresAsync``
    /// before the factory runs, and the async factory (the registration's own, or `inner` called with the
    /// resolver's container, inside its graph) is followed by every decorator in order.
    func wrapFactory(_ inner: @escaping (any Resolver) throws -> Service, inAsync decorators: [Decorator<Service>]) {
        decoratedFactory = { _ in throw asyncFactoryResolvedSynchronously() }
        let made: @Sendable (AsyncResolver) async throws -> Service
        if let typed = asyncFactory as? TypedAsyncFactory<Service> {
            made = typed.typed
        } else {
            let synchronous = SynchronousFactory(inner)
            made = { resolver in try resolver.synchronously { try synchronous.make($0) } }
        }
        asyncFactory = TypedAsyncFactory { resolver in
            try await Decorator.apply(decorators, to: try await made(resolver), resolver: resolver)
        }
        decoratorCount += decorators.count
    }

    /// Wraps this registration's factory with runtime arguments, `box`, in `decorators`, of which at least one
    /// is `async`, as ``wrapFactory(_:inAsync:)`` does.
    func wrapFactoryWithArguments(_ box: any DecoratableFactory, inAsync decorators: [Decorator<Service>]) {
        erasedFactory = ErasedFactory(box.decorated(by: decorators))
        if let inner = asyncFactory {
            asyncFactory = AsyncFactory { resolver, arguments in
                guard let made = try await inner.make(resolver, arguments) else { return nil }
                guard let instance = made.value as? Service else { return made }
                return Made(value: try await Decorator.apply(decorators, to: instance, resolver: resolver))
            }
        } else {
            asyncFactory = box.asyncDecorated(by: decorators)
        }
        decoratorCount += decorators.count
    }
}
