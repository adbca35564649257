/// Registration and resolution with the service type inferred from the code around the call: the
/// factory's result when registering, the declared type of the variable when resolving.
///
/// ```swift
/// container.register { ClassB() }
/// container.register { r in ClassA(b: try r.require()) }
///
/// let a: ClassA = try container.require()
/// ```
///
/// A registration made this way is the same as one that names its type: `register { ClassB() }` is
/// `register(ClassB.self) { _ in ClassB() }`. The registered type is exactly the factory's result type,
/// so to register under a protocol either name the type or convert the result
/// (`register { Cat() as any Animal }`).
extension Container {
    /// Registers the factory's result type; the factory receives a resolver for the dependencies.
    ///
    /// ```swift
    /// container.register { r in ClassA(b: try r.require()) }
    /// container.register(name: "fast") { r in Car(engine: try r.require(name: "v8")) }
    /// ```
    ///
    /// - Parameters:
    ///   - name: Tells apart registrations of the same type.
    ///   - factory: Makes the instance; it may throw.
    /// - Returns: The registration, to set its scope and `initCompleted` callbacks.
    @discardableResult
    public func register<Service>(
        name: String? = nil,
        factory: @escaping (any Resolver) throws -> Service
    ) -> ServiceEntry<Service> {
        register(Service.self, name: name, factory: factory)
    }

    /// Registers the factory's result type, made from a resolver and the runtime arguments `resolve` passes.
    ///
    /// ```swift
    /// container.register { (r, name: String) in Cat(name: name) }
    /// let cat: Cat = try container.require(arguments: "Mimi")
    /// ```
    ///
    /// - Parameters:
    ///   - name: Tells apart registrations of the same type and argument types.
    ///   - factory: Makes the instance from the resolver and the arguments; it may throw.
    /// - Returns: The registration.
    @discardableResult
    public func register<Service, each Argument>(
        name: String? = nil,
        factory: @escaping (any Resolver, repeat each Argument) throws -> Service
    ) -> ServiceEntry<Service> {
        register(Service.self, name: name, factory: factory)
    }

    /// Registers the factory's result type, made by a factory that needs no resolver.
    ///
    /// ```swift
    /// container.register { ClassB() }
    /// container.register(name: "metric") { Ruler(unit: .centimetres) }.inObjectScope(.container)
    /// ```
    ///
    /// - Parameters:
    ///   - name: Tells apart registrations of the same type.
    ///   - factory: Makes the instance; it may throw.
    /// - Returns: The registration.
    @discardableResult
    public func register<Service>(
        name: String? = nil,
        factory: @escaping () throws -> Service
    ) -> ServiceEntry<Service> {
        register(Service.self, name: name) { _ in try factory() }
    }
}

extension Resolver {
    /// Returns an instance of the type the result is assigned to, or `nil` if it cannot be made.
    ///
    /// ```swift
    /// let radio: Radio? = r.resolve()
    /// let backup: Radio? = r.resolve(name: "backup")
    /// ```
    public func resolve<Service>(name: String? = nil) -> Service? {
        resolve(Service.self, name: name)
    }

    /// Returns an instance of the type the result is assigned to, made with one runtime argument, or `nil` if
    /// it cannot be made.
    ///
    /// ```swift
    /// let model: Model? = container.resolve(argument: true)
    /// ```
    public func resolve<Service, Argument>(name: String? = nil, argument: Argument) -> Service? {
        resolve(Service.self, name: name, argument: argument)
    }

    /// Returns an instance of the type the result is assigned to, made with the given runtime arguments
    /// (at least one), or `nil` if it cannot be made.
    ///
    /// ```swift
    /// let cat: Cat? = container.resolve(arguments: "Mimi", true)
    /// ```
    public func resolve<Service, First, each Other>(
        name: String? = nil,
        arguments first: First,
        _ others: repeat each Other
    ) -> Service? {
        resolve(Service.self, name: name, arguments: first, repeat each others)
    }

    /// Returns an instance of the type the result is assigned to, made with the given runtime arguments
    /// (at least one), or throws a ``ResolutionError`` that explains why not.
    ///
    /// ```swift
    /// let cat: Cat = try container.require(arguments: "Mimi", true)
    /// ```
    ///
    /// Without arguments, ``require(_:name:)`` infers the type the same way: `let a: ClassA = try r.require()`.
    public func require<Service, First, each Other>(
        name: String? = nil,
        arguments first: First,
        _ others: repeat each Other
    ) throws -> Service {
        try require(Service.self, name: name, arguments: first, repeat each others)
    }
}
