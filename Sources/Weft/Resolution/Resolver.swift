/// Resolves services: the container itself, and what every factory and `initCompleted` callback receives.
///
/// `resolve` returns `nil` when a service cannot be made (as in Swinject); `require` throws a
/// ``ResolutionError`` that says what was missing and along which path.
///
/// ```swift
/// container.register(Car.self) { r in
///     Car(engine: try r.require(Engine.self), radio: r.resolve(Radio.self))
/// }
/// ```
///
/// Only classes conform (a `Container` is the resolver factories receive): a class-bound existential is
/// passed to a factory without retaining the container, which matters when many threads resolve at once.
public protocol Resolver: AnyObject, Sendable {
    /// Returns an instance of `serviceType`, or `nil` if it cannot be made.
    func resolve<Service>(_ serviceType: Service.Type) -> Service?

    /// Returns an instance of `serviceType` registered under `name`, or `nil` if it cannot be made.
    func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service?

    /// Returns an instance of `serviceType` registered under `name` with a factory taking `arguments`,
    /// or `nil` if it cannot be made. Any number of arguments may be passed.
    func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) -> Service?

    /// Returns an instance of `serviceType` registered under `name` with a factory taking `arguments`.
    ///
    /// - Throws: ``ResolutionError`` when nothing matching is registered, when the services ask for each
    ///   other in a cycle, or when a factory or `initCompleted` callback throws.
    func require<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Argument
    ) throws -> Service

    /// Returns an instance of `serviceType` registered under `name` with a factory taking no arguments, or
    /// throws: what ``require(_:name:)`` calls. Call `require(_:name:)`; a conforming type need not
    /// implement this (the default calls ``require(_:name:arguments:)`` with no arguments), the container
    /// does so that `require` takes the same path as `resolve`.
    func _require<Service>(_ serviceType: Service.Type, name: String?) throws -> Service
}

extension Resolver {
    /// Returns an instance of `serviceType` made with one runtime argument, or `nil`.
    public func resolve<Service, Argument>(_ serviceType: Service.Type, argument: Argument) -> Service? {
        resolve(serviceType, name: nil, arguments: argument)
    }

    /// Returns an instance of `serviceType` named `name` made with one runtime argument, or `nil`.
    public func resolve<Service, Argument>(
        _ serviceType: Service.Type,
        name: String?,
        argument: Argument
    ) -> Service? {
        resolve(serviceType, name: name, arguments: argument)
    }

    /// Returns an instance of `serviceType` made with the given runtime arguments, or `nil`.
    public func resolve<Service, each Argument>(
        _ serviceType: Service.Type,
        arguments: repeat each Argument
    ) -> Service? {
        resolve(serviceType, name: nil, arguments: repeat each arguments)
    }

    /// Returns an instance of `serviceType`, or throws a ``ResolutionError`` that explains why not.
    @inlinable @inline(__always)
    public func require<Service>(_ serviceType: Service.Type = Service.self, name: String? = nil) throws -> Service {
        try _require(serviceType, name: name)
    }

    /// Calls ``require(_:name:arguments:)`` with no arguments.
    public func _require<Service>(_ serviceType: Service.Type, name: String?) throws -> Service {
        try requireWithoutArguments(self, serviceType, name: name)
    }

    /// Returns an instance of `serviceType` made with one runtime argument, or throws.
    public func require<Service, Argument>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        argument: Argument
    ) throws -> Service {
        try require(serviceType, name: name, arguments: argument)
    }

    /// Returns an instance of `serviceType` made with the given runtime arguments (at least one), or throws.
    public func require<Service, First, each Other>(
        _ serviceType: Service.Type,
        arguments first: First,
        _ others: repeat each Other
    ) throws -> Service {
        try require(serviceType, name: nil, arguments: first, repeat each others)
    }
}

/// Calls the pack requirement with an empty pack (a pack parameter cannot be left out by name).
private func requireWithoutArguments<Service, each Argument>(
    _ resolver: some Resolver,
    _ serviceType: Service.Type,
    name: String?,
    _ arguments: repeat each Argument
) throws -> Service {
    try resolver.require(serviceType, name: name, arguments: repeat each arguments)
}
