/// The resolution entry point for extensions written for Swinject (such as storyboard support), which
/// register with ``Container/_register(_:factory:name:option:)``.
public protocol _Resolver {
    /// Resolves with a factory of the form `(Arguments) -> Any`, called through `invoker`.
    func _resolve<Service, Arguments>(
        name: String?,
        option: (any ServiceKeyOption)?,
        invoker: @escaping ((Arguments) -> Any) -> Any
    ) -> Service?
}

extension Container: _Resolver {}

extension Container: Resolver {
    /// Returns an instance of `serviceType`, or `nil` (reported through ``loggingFunction``) if it
    /// cannot be made.
    ///
    /// ```swift
    /// let owner = container.resolve(PersonType.self)
    /// ```
    @inlinable @inline(__always)
    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        // Always inlined (as `resolve(_:name:)` and `_require` are): the witnesses a factory calls through
        // `any Resolver` then go straight to the unspecialised entry point, without a frame of their own.
        resolve(serviceType, name: nil)
    }

    /// Returns an instance of `serviceType` registered under `name`, or `nil` if it cannot be made.
    @inlinable @inline(__always)
    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        // Inlinable so that a caller that names `Service` reads a built `.container` instance specialised for it
        // (see `makeSpecialised(_:name:)`). Where `Service` is not known (through `Resolver`, or in generic
        // code), the copy compiled in this module runs instead, with the whole hot path inlined into it.
        guard _isConcrete(Service.self) else { return resolveUnspecialised(serviceType, name: name) }
        // Not through `reportingFailure`: one closure and one call less on the hot path.
        do {
            return try makeSpecialised(serviceType, name: name)
        } catch {
            report(error, resolving: serviceType)
            return nil
        }
    }

    /// Returns an instance of `serviceType` registered under `name` whose factory takes `arguments`,
    /// or `nil` if it cannot be made.
    ///
    /// ```swift
    /// let cat = container.resolve(AnimalType.self, arguments: "Mimi", true)
    /// ```
    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service? {
        reportingFailure { try make(serviceType, name: name, option: nil, arguments: repeat each arguments) }
    }

    /// Returns an instance of `serviceType` registered under `name` whose factory takes `arguments`.
    ///
    /// ```swift
    /// let engine = try container.require(Engine.self, name: "v8", arguments: 8, "petrol")
    /// ```
    ///
    /// - Throws: ``ResolutionError``, whose description names what was asked for, the path that led
    ///   there and what is registered instead.
    public func require<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) throws -> Service {
        try make(serviceType, name: name, option: nil, arguments: repeat each arguments)
    }

    /// Returns an instance of `serviceType` registered under `name` (no arguments), or throws: the path of
    /// ``resolve(_:name:)``, reporting failure by throwing. Call ``Resolver/require(_:name:)``.
    @inlinable @inline(__always)
    public func _require<Service>(_ serviceType: Service.Type, name: String?) throws -> Service {
        // As in `resolve(_:name:)`: specialised where `Service` is known, this module's copy otherwise.
        guard _isConcrete(Service.self) else { return try requireUnspecialised(serviceType, name: name) }
        return try makeSpecialised(serviceType, name: name)
    }

    /// ``resolve(_:name:)`` for a `Service` unknown where it is called: compiled here, once for every type, with
    /// the engine's steps inlined into it.
    @usableFromInline
    func resolveUnspecialised<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        do {
            return try makeWithoutArguments(serviceType, name: name)
        } catch {
            report(error, resolving: serviceType)
            return nil
        }
    }

    /// ``_require(_:name:)`` for a `Service` unknown where it is called (see ``resolveUnspecialised(_:name:)``).
    @usableFromInline
    func requireUnspecialised<Service>(_ serviceType: Service.Type, name: String?) throws -> Service {
        try makeWithoutArguments(serviceType, name: name)
    }

    /// Resolves with a factory of the Swinject extension form `(Arguments) -> Any`; for extensions
    /// written for Swinject, which register with ``_register(_:factory:name:option:)``.
    ///
    /// - Parameters:
    ///   - name: The registration name.
    ///   - option: An extension's extra key component.
    ///   - invoker: Calls the registered factory with the arguments.
    /// - Returns: The instance, or `nil` if it cannot be made.
    public func _resolve<Service, Arguments>(
        name: String?,
        option: (any ServiceKeyOption)? = nil,
        invoker: @escaping ((Arguments) -> Any) -> Any
    ) -> Service? {
        let key = ServiceKey(serviceType: Service.self, argumentsType: Arguments.self, name: name, option: option)
        return reportingFailure {
            try resolving(graph: nil) { state in
                guard let found = state.lookups.find(key, in: self),
                    let factory = (found.entry.object.factory as? TupleFactory<Arguments>)?.make
                else {
                    throw missing(key, state: state)
                }
                let instance = try make(found, key: key, state: state, as: Any.self) { invoker(factory) }
                return try cast(instance, key: key, state: state)
            }
        }
    }

    /// Runs `body`; on failure tells the debug helper and the logging hook, and returns nil.
    private func reportingFailure<Service>(_ body: () throws -> Service) -> Service? {
        do {
            return try body()
        } catch {
            report(error, resolving: Service.self)
            return nil
        }
    }

    /// Tells the debug helper and the logging hook why resolving `serviceType` failed.
    @usableFromInline
    func report<Service>(_ error: any Error, resolving serviceType: Service.Type) {
        guard let error = error as? ResolutionError else {
            Container.log(.resolutionFailed(error, resolving: serviceType))
            return
        }
        if error.reason == .missingRegistration, let key = error.key {
            debugHelper.resolutionFailed(
                serviceType: serviceType,
                key: key,
                availableRegistrations: allRegistrations()
            )
        }
        debugHelper.log(error)
    }
}
