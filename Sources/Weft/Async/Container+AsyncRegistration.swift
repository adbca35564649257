/// An `async` factory, erased to return a ``Made``: the runtime arguments come boxed (a ``PackBox``, or `()`
/// for none), and nil is returned when they are not the ones the factory takes. Not generic, so that the
/// engine calls every factory through the same code.
@usableFromInline class AsyncFactory: @unchecked Sendable {
    let make: nonisolated(nonsending) @Sendable (AsyncResolver, any Sendable) async throws -> Made?

    init(_ make: nonisolated(nonsending) @escaping @Sendable (AsyncResolver, any Sendable) async throws -> Made?) {
        self.make = make
    }
}

/// The factory of an `async` registration without runtime arguments, also kept typed: an async resolve of
/// exactly the registered type calls ``typed`` and receives the instance without a box or a cast. The
/// registration's own type says which factory it has, so the engine may downcast to this class when a lookup
/// is exact.
@usableFromInline final class TypedAsyncFactory<Service>: AsyncFactory, @unchecked Sendable {
    @usableFromInline let typed: @Sendable (AsyncResolver) async throws -> Service

    init(_ typed: @escaping @Sendable (AsyncResolver) async throws -> Service) {
        self.typed = typed
        super.init { resolver, _ in Made(value: try await typed(resolver)) }
    }
}

extension Container {
    /// Registers an `async` factory for `serviceType`; it is chosen over the synchronous `register` when the
    /// closure awaits.
    ///
    /// ```swift
    /// container.register(Database.self) { _ in try await Database.open(path: path) }
    ///     .inObjectScope(.container)
    /// container.register(Reports.self) { r in Reports(database: try await r.require(Database.self)) }
    /// ```
    ///
    /// Resolve such a service from async code, with ``async`` (`try await container.async.require(...)`) or
    /// with the ``AsyncResolver`` an async factory receives. A synchronous resolve that would have to make an
    /// instance fails with ``ResolutionError/Reason/requiresAsync`` (a `.container` instance that an async
    /// resolve already made is returned). `initCompleted` callbacks run with a synchronous resolver, once the
    /// top-level factory has returned, as for synchronous factories (a shared instance's right after its factory;
    /// see <doc:AsyncAndActors>).
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: Tells apart registrations of the same type.
    ///   - factory: Makes the instance; it may suspend and throw. It runs on the generic executor, or on its
    ///     actor when it is isolated (`{ @MainActor r in ... }`).
    /// - Returns: The registration, to set its scope and callbacks.
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping @Sendable (AsyncResolver) async throws -> Service
    ) -> ServiceEntry<Service> {
        let entry = ServiceEntry(
            serviceType: serviceType,
            plainFactory: { _ in throw asyncFactoryResolvedSynchronously() },
            objectScope: defaultObjectScope
        )
        // Without arguments: no pack to unbox.
        entry.asyncFactory = TypedAsyncFactory(factory)
        addPlain(entry, as: serviceType, name: name)
        return entry
    }

    /// Registers an `async` factory that takes runtime arguments, any number of them.
    ///
    /// ```swift
    /// container.register(Session.self) { r, userID in
    ///     Session(user: try await r.require(UserStore.self).user(userID))
    /// }
    /// let session = try await container.async.require(Session.self, arguments: userID)
    /// ```
    @discardableResult
    public func register<Service, First, each Other>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping @Sendable (AsyncResolver, First, repeat each Other) async throws -> Service
    ) -> ServiceEntry<Service> {
        let entry = asyncEntry(serviceType, factory: factory)
        add(
            entry, as: serviceType,
            key: ServiceKey(serviceType: serviceType, argumentsType: entry.argumentsType, name: name))
        return entry
    }

    /// A new registration of the `async` `factory`, which takes runtime arguments, in the default object scope:
    /// a synchronous resolve of it fails with ``ResolutionError/Reason/requiresAsync``.
    func asyncEntry<Service, First, each Other>(
        _ serviceType: Service.Type,
        factory: @escaping @Sendable (AsyncResolver, First, repeat each Other) async throws -> Service
    ) -> ServiceEntry<Service> {
        let box = factoryBox { (_: any Resolver, _: First, _: repeat each Other) in
            throw asyncFactoryResolvedSynchronously()
        }
        let entry = ServiceEntry(
            serviceType: serviceType,
            argumentsType: (any Resolver, First, repeat each Other).self,
            factory: box,
            objectScope: defaultObjectScope
        )
        entry.asyncFactory = asyncFactoryBox(factory)
        return entry
    }

    /// Registers an `async` factory for the type it returns.
    ///
    /// ```swift
    /// container.register { _ in try await Database.open(path: path) }
    /// ```
    @discardableResult
    public func register<Service>(
        name: String? = nil,
        factory: @escaping @Sendable (AsyncResolver) async throws -> Service
    ) -> ServiceEntry<Service> {
        register(Service.self, name: name, factory: factory)
    }
}

/// Boxes an async factory that takes runtime arguments; the pack is inferred from the factory's parameters.
private func asyncFactoryBox<Service, each Argument>(
    _ factory: @escaping @Sendable (AsyncResolver, repeat each Argument) async throws -> Service
) -> AsyncFactory {
    AsyncFactory { resolver, arguments in
        guard let arguments = arguments as? PackBox<(repeat each Argument)> else { return nil }
        return Made(value: try await factory(resolver, repeat each arguments.values))
    }
}

/// The error for a synchronous resolve that reached an `async` factory (see ``Container/asyncFactoryReached(state:)``).
func asyncFactoryResolvedSynchronously() -> ResolutionError {
    Container.asyncFactoryReached(state: ResolutionState.current)
}
