/// Resolves services from async code: the resolver handed to `async` factories, and the async entry point
/// of every container (``Container/async``).
///
/// ```swift
/// container.register(Database.self) { _ in try await Database.open(path: path) }
///     .inObjectScope(.container)
/// container.register(TodoRepository.self) { r in
///     TodoRepository(database: try await r.require(Database.self))
/// }
///
/// let repository = try await container.async.require(TodoRepository.self)
/// ```
///
/// It resolves every service, whether its factory is `async` or not, within one object graph per
/// top-level call: graph-scoped instances are shared across suspension points, cycles are reported with
/// their path, and a `.container` instance is made once even when many tasks ask for it at the same time
/// (the others wait for it without blocking a thread).
///
/// The methods are named like ``Resolver``'s but are only `async`: a container's synchronous `resolve` and
/// `require` keep their meaning in async code, and `container.async` says that a resolve may suspend.
public struct AsyncResolver: Sendable {
    /// The container resolves start from, unretained: a nested resolve then hands it to the next factory's
    /// resolver without retaining it. What keeps it alive: for ``Container/async``, ``owner``; for a factory's
    /// resolver, its resolution, whose top-level context retains the container (see ``AsyncContext/root(_:container:)``)
    /// for as long as any context of it is referred to, this resolver's included.
    @usableFromInline let unretainedContainer: Unmanaged<Container>
    /// The container, retained, for a resolver of no resolution (``Container/async``); nil for a factory's.
    @usableFromInline let owner: Container?
    /// The resolution this resolver was handed to (a factory's); nil for ``Container/async``. Variable only for
    /// the engine, which recycles it from the resolver it lent to the factory (see ``AsyncContext/recycle(_:)``).
    @usableFromInline var context: AsyncContext?

    /// The resolver of ``Container/async``: resolves start from `container`, which it retains.
    init(owner container: Container) {
        unretainedContainer = .passUnretained(container)
        owner = container
        context = nil
    }

    /// The resolver handed to the factory of `context`'s step. `container` is the container the resolution's
    /// top-level context retains (that context was made for it): the resolver refers to it unretained.
    @inlinable init(within container: Unmanaged<Container>, context: AsyncContext) {
        unretainedContainer = container
        owner = nil
        self.context = context
    }

    /// The container resolves start from.
    var container: Container { unretainedContainer.takeUnretainedValue() }

    /// Returns an instance of `serviceType`, or throws a ``ResolutionError`` that explains why not.
    ///
    /// Runs where its caller runs (on the caller's actor, if any), and hands the instance over there; factories
    /// run where they are declared to.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve; inferred from the context when left out.
    ///   - name: The registration name.
    @inlinable @inline(__always)
    nonisolated(nonsending) public func require<Service>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil
    ) async throws -> Service {
        // Inlined into the factory that resolves: a nested request for a service with a typed async factory calls
        // that factory (transient) or the graph's build of it (graph-scoped) from the caller's frame, without a
        // frame of its own for `require`.
        let key = ServiceKey(
            serviceType: Service.self,
            argumentsType: unretainedContainer._withUnsafeGuaranteedRef { $0.noArgumentsType },
            name: name)
        guard context != nil else {
            // A top-level request (see ``TopLevelCall``): a typed transient factory is called from this frame. What
            // follows reads the container through `unretainedContainer` only: inlined into the caller, this resolver
            // (``Container/async``'s, whose `owner` may be the container's last reference) would otherwise be
            // released before the request ends.
            defer { withExtendedLifetime(self) {} }
            let (factory, root): (UnsafeMutableRawPointer, Unmanaged<AsyncContext>)
            switch Self.topLevelCall(key, in: unretainedContainer) {
            case .engine(let route): return try await make(Service.self, key: key, along: route)
            case .typed(let typedFactory, let started): (factory, root) = (typedFactory, started)
            }
            let resolver = AsyncResolver(within: unretainedContainer, context: root.takeRetainedValue())
            let instance: Service
            do {
                instance = try await Unmanaged<TypedAsyncFactory<Service>>.fromOpaque(factory)
                    ._withUnsafeGuaranteedRef { $0.typed }(resolver)
            } catch {
                var finished = consume resolver
                let failure = finished.factoryError(error)
                Self.endResolution(finished.context.take())
                throw failure
            }
            var finished = consume resolver
            try Self.completeAndEndResolution(finished.context.take(), in: unretainedContainer)
            return instance
        }
        let call = try Self.nestedCall(key, context: context.unsafelyUnwrapped, in: unretainedContainer)
        guard let factory = call.factory else { return try await make(Service.self, key: key, after: call) }
        guard let inner = call.inner else {
            return try await Container.makeInGraph(
                call.found.unsafelyUnwrapped.entry, factory: .fromOpaque(factory), key: key,
                context: .passUnretained(context.unsafelyUnwrapped), in: unretainedContainer)
        }
        // A constant, lent to the factory as it is, then consumed to recycle its context: a variable would be
        // copied for the call, its context retained and released around it.
        let resolver = AsyncResolver(within: unretainedContainer, context: inner.takeRetainedValue())
        do {
            let instance = try await Unmanaged<TypedAsyncFactory<Service>>.fromOpaque(factory)
                ._withUnsafeGuaranteedRef { $0.typed }(resolver)
            var finished = consume resolver
            Self.factoryDidReturn(finished.context.take())
            return instance
        } catch {
            var finished = consume resolver
            let failure = finished.factoryError(error)
            Self.factoryDidReturn(finished.context.take())
            throw failure
        }
    }

    /// ``require(_:name:)`` for code that names the isolation to hand the instance over to.
    public func require<Service>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        isolation: isolated (any Actor)?
    ) async throws -> Service {
        try await require(serviceType, name: name)
    }

    /// Returns an instance of `serviceType` made with the given runtime arguments (at least one), or throws a
    /// ``ResolutionError``.
    ///
    /// ```swift
    /// let session = try await container.async.require(Session.self, arguments: userID, "mobile")
    /// ```
    nonisolated(nonsending) public func require<Service, First, each Other>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        arguments first: First,
        _ others: repeat each Other
    ) async throws -> Service {
        try await make(
            serviceType,
            request: ArgumentRequest(
                serviceType, name: name, container: container, arguments: first, repeat each others)
        )
    }

    /// ``require(_:name:arguments:_:)`` for code that names the isolation to hand the instance over to.
    public func require<Service, First, each Other>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        arguments first: First,
        _ others: repeat each Other,
        isolation: isolated (any Actor)?
    ) async throws -> Service {
        try await require(serviceType, name: name, arguments: first, repeat each others)
    }

    /// Returns an instance of `serviceType` made with one runtime argument, or throws a ``ResolutionError``: the
    /// spelling of the synchronous ``Resolver/require(_:name:argument:)``.
    ///
    /// ```swift
    /// let session = try await container.async.require(Session.self, argument: userID)
    /// ```
    nonisolated(nonsending) public func require<Service, Argument>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        argument: Argument
    ) async throws -> Service {
        try await make(
            serviceType, request: ArgumentRequest(serviceType, name: name, container: container, arguments: argument))
    }

    /// ``require(_:name:argument:)`` for code that names the isolation to hand the instance over to.
    public func require<Service, Argument>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        argument: Argument,
        isolation: isolated (any Actor)?
    ) async throws -> Service {
        try await require(serviceType, name: name, argument: argument)
    }

    /// Returns an instance of `serviceType` made with one runtime argument, or `nil`: the spelling of the
    /// synchronous ``Resolver/resolve(_:name:argument:)``.
    nonisolated(nonsending) public func resolve<Service, Argument>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        argument: Argument
    ) async -> Service? {
        await reportingFailure(serviceType) {
            try await make(
                serviceType,
                request: ArgumentRequest(serviceType, name: name, container: container, arguments: argument))
        }
    }

    /// ``resolve(_:name:argument:)`` for code that names the isolation to hand the instance over to.
    public func resolve<Service, Argument>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        argument: Argument,
        isolation: isolated (any Actor)?
    ) async -> Service? {
        await resolve(serviceType, name: name, argument: argument)
    }

    /// Returns an instance of `serviceType`, or `nil` when it cannot be made; the reason goes to
    /// ``Container/loggingFunction``.
    nonisolated(nonsending) public func resolve<Service>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil
    ) async -> Service? {
        await reportingFailure(serviceType) {
            try await make(serviceType, name: name)
        }
    }

    /// ``resolve(_:name:)`` for code that names the isolation to hand the instance over to.
    public func resolve<Service>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        isolation: isolated (any Actor)?
    ) async -> Service? {
        await resolve(serviceType, name: name)
    }

    /// Returns an instance of `serviceType` made with the given runtime arguments (at least one), or `nil`.
    nonisolated(nonsending) public func resolve<Service, First, each Other>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        arguments first: First,
        _ others: repeat each Other
    ) async -> Service? {
        await reportingFailure(serviceType) {
            try await make(
                serviceType,
                request: ArgumentRequest(
                    serviceType, name: name, container: container, arguments: first, repeat each others)
            )
        }
    }

    /// ``resolve(_:name:arguments:_:)`` for code that names the isolation to hand the instance over to.
    public func resolve<Service, First, each Other>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        arguments first: First,
        _ others: repeat each Other,
        isolation: isolated (any Actor)?
    ) async -> Service? {
        await resolve(serviceType, name: name, arguments: first, repeat each others)
    }

    nonisolated(nonsending) private func reportingFailure<Service>(
        _ serviceType: Service.Type,
        _ body: nonisolated(nonsending) () async throws -> Service
    ) async -> Service? {
        do {
            return try await body()
        } catch {
            container.report(error, resolving: serviceType)
            return nil
        }
    }

    /// Resolves `Service` with `arguments`.
    nonisolated(nonsending) private func make<Service>(_: Service.Type, request: ArgumentRequest) async throws
        -> Service
    {
        let made: Made
        do {
            made = try await make(request.key, arguments: request.arguments) { try request.synchronously() }
        } catch let error as ResolutionError {
            // Arguments Swift passed as their concrete types (see `OpenedArguments.swift`), once the registration of
            // the request's own key is known to be missing. The synchronous engine, which a missing key reaches,
            // finds the registration that takes them too, and refuses it when its factory is async.
            guard error.reason == .missingRegistration || error.reason == .requiresAsync,
                let declared = container.declaredArguments(of: request, as: Service.self)
            else { throw error }
            return try await make(Service.self, request: declared)
        }
        return try cast(made, key: request.key)
    }

    /// Resolves `Service` without runtime arguments: no parameter pack, whose types the runtime would look up
    /// on every call. Inlined into `require` and `resolve`: a call of its own would be one more async frame per
    /// resolve.
    @usableFromInline @inline(__always)
    nonisolated(nonsending) func make<Service>(
        _: Service.Type,
        name: String?
    ) async throws -> Service {
        let key = ServiceKey(
            serviceType: Service.self,
            argumentsType: unretainedContainer._withUnsafeGuaranteedRef { $0.noArgumentsType },
            name: name)
        // A resolver its factory kept resolves on its own once the factory has returned.
        // Read through the resolver rather than bound: the resolver, borrowed for the call, holds the context.
        let live = context != nil && context.unsafelyUnwrapped.isLive
        return try await Container.makeAsync(
            Service.self, key: key, context: live ? .passUnretained(context.unsafelyUnwrapped) : nil,
            in: unretainedContainer)
    }

    /// Makes `key`: within this resolver's resolution, or as a new top-level one.
    nonisolated(nonsending) private func make(
        _ key: ServiceKey,
        arguments: any Sendable,
        synchronously: @Sendable () throws -> Any
    ) async throws -> Made {
        // A resolver its factory kept resolves on its own once the factory has returned.
        if let context, context.isLive {
            return try await container.makeAsync(
                key: key, context: context, arguments: arguments, synchronously: synchronously)
        }
        var context: AsyncContext? = AsyncContext.root(nil, container: container)
        defer {
            context.unsafelyUnwrapped.endResolution()
            AsyncContext.recycle(&context)
        }
        let made = try await container.makeAsync(
            key: key, context: context.unsafelyUnwrapped, arguments: arguments, synchronously: synchronously)
        try container.completeDeferred(root: context.unsafelyUnwrapped)
        return made
    }

    /// Runs synchronous user code that resolves through a container (a synchronous factory or decorator that an
    /// async decorator's chain calls) inside this resolver's object graph: in a segment of the synchronous engine,
    /// as the async engine runs a synchronous factory, so that what it resolves shares the graph's instances and
    /// its cycle checks. Outside any resolution (``Container/async``), it runs as a resolve of its own would.
    func synchronously<T>(_ body: (Container) throws -> T) throws -> T {
        let container = container
        guard let context, context.isLive else { return try body(container) }
        return try container.segment(context, awaiting: nil) { _ in try body(container) }
    }

    /// Resolves the registration of `Service` under `name` told apart by `option`: a collection's element (see
    /// ``CollectionBook``), whose factory may be async or synchronous.
    nonisolated(nonsending) func require<Service>(
        _: Service.Type,
        name: String?,
        option: any ServiceKeyOption
    ) async throws -> Service {
        let key = ServiceKey(serviceType: Service.self, argumentsType: noArguments, name: name, option: option)
        let container = container
        let made = try await make(key, arguments: ()) {
            try container.make(Service.self, name: name, option: option)
        }
        return try cast(made, key: key)
    }

    /// Resolves the registration of `key` with `arguments`, as `Service`, where their types are not known as a
    /// parameter pack (`key` was made where they were): `synchronously` makes it in a synchronous part of the graph
    /// (see ``FactoryBox``'s forwarding).
    nonisolated(nonsending) func require<Service>(
        _: Service.Type,
        key: ServiceKey,
        arguments: any Sendable,
        synchronously: @escaping @Sendable () throws -> Any
    ) async throws -> Service {
        try cast(try await make(key, arguments: arguments, synchronously: synchronously), key: key)
    }

    /// What `key`'s registration made, as `Service`.
    private func cast<Service>(_ made: Made, key: ServiceKey) throws -> Service {
        try container.cast(made, key: key, context: context)
    }
}

extension Container {
    /// Resolves from async code, including services whose factories are `async`.
    ///
    /// ```swift
    /// let repository = try await container.async.require(TodoRepository.self)
    /// let cache = await container.async.resolve(Cache.self)   // nil if it cannot be made
    /// ```
    public var async: AsyncResolver {
        AsyncResolver(owner: self)
    }
}

/// Something made, handed between isolation domains inside the engine. The engine hands an instance to
/// exactly one caller at a time, or shares one that the container keeps, as a synchronous resolve does.
struct Made: @unchecked Sendable {
    let value: Any

    /// Where, in a `Made`, its `Any` keeps the type of its value: after the three words of its value buffer.
    static let typeOffset = 3 * MemoryLayout<Int>.size
}
