/// The arguments type of a factory that takes only the resolver.
let noArguments: Any.Type = (any Resolver).self

/// A factory that takes only the resolver; resolved without parameter-pack metadata.
final class PlainFactory: @unchecked Sendable {
    let make: (any Resolver) throws -> Any

    init(_ make: @escaping (any Resolver) throws -> Any) {
        self.make = make
    }
}

/// The factory of a registration made with ``Container/_register(_:factory:name:option:)``, which takes all its
/// arguments as one value, `(Resolver, Arg1, ...)` as in Swinject. The engine calls it through
/// ``make(erased:)`` with that tuple built from the caller's arguments: calling the closure after casting it to a
/// function type spelled with a parameter pack, `((any Resolver, repeat each Argument)) -> Any`, crashes at run
/// time when the pack is not empty.
final class TupleFactory<Arguments>: ErasedTupleFactory, @unchecked Sendable {
    let make: (Arguments) -> Any

    init(_ make: @escaping (Arguments) -> Any) {
        self.make = make
    }

    func make(erased arguments: Any) -> Any? {
        guard let arguments = arguments as? Arguments else { return nil }
        return make(arguments)
    }
}

/// A ``TupleFactory`` whatever its arguments type.
protocol ErasedTupleFactory {
    /// Calls the factory with `arguments`, or returns nil when they are not of its arguments type.
    func make(erased arguments: Any) -> Any?
}

/// A factory that takes runtime arguments, erased; boxed so that a registration without arguments pays one
/// pointer for it, not an optional existential.
final class ErasedFactory: @unchecked Sendable {
    let value: Any
    /// ``value`` when it takes runtime arguments (see ``ArgumentFactory``), cast once here rather than on every
    /// resolve.
    let arguments: ArgumentFactory?

    init(_ value: Any) {
        self.value = value
        arguments = value as? ArgumentFactory
    }
}

/// A factory that takes runtime arguments and can be wrapped in decorators whatever its argument types.
protocol DecoratableFactory {
    /// This factory, with what it makes wrapped in `decorators` (see ``Container/decorate(_:name:decorator:)``).
    func decorated<Service>(by decorators: [Decorator<Service>]) -> Any
    /// This factory as an async one, with what it makes wrapped in `decorators`, some of them `async` (see
    /// `Container+AsyncDecorators.swift`).
    func asyncDecorated<Service>(by decorators: [Decorator<Service>]) -> AsyncFactory
    /// A factory taking the same arguments that resolves `Type` under `name` and `option` with them: the factory
    /// of a decorated forward (see `Container+ForwardDecoration.swift`).
    func forwarding<Type>(_ type: Type.Type, name: String?, option: any ServiceKeyOption) -> Any
    /// ``forwarding(_:name:option:)`` from async code, for a forward to an `async` registration.
    func asyncForwarding<Type>(_ type: Type.Type, name: String?, option: any ServiceKeyOption) -> AsyncFactory
}

extension Container {
    /// Registers how to make `serviceType`: the factory receives a resolver for the dependencies and the
    /// runtime arguments that `resolve` passes, any number of them.
    ///
    /// ```swift
    /// container.register(AnimalType.self) { _ in Cat() }
    /// container.register(AnimalType.self, name: "named") { _, name in Cat(name: name) }
    /// container.register(PersonType.self) { r in PetOwner(pet: try r.require(AnimalType.self)) }
    /// ```
    ///
    /// A registration with the same type, name and argument types replaces the earlier one.
    /// Registrations that differ only in argument types are separate registrations.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register, usually a protocol.
    ///   - name: Tells apart registrations of the same type and argument types.
    ///   - factory: Makes the instance; it may throw, and `require` then reports the error with its path.
    /// - Returns: The registration, to set its scope, `initCompleted` callbacks and forwarded types.
    @discardableResult
    public func register<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, repeat each Argument) throws -> Service
    ) -> ServiceEntry<Service> {
        let entry = entry(serviceType, factory: factory)
        add(
            entry, as: serviceType,
            key: ServiceKey(serviceType: serviceType, argumentsType: entry.argumentsType, name: name))
        return entry
    }

    /// A new registration of `factory`, which takes runtime arguments, in the default object scope.
    func entry<Service, each Argument>(
        _ serviceType: Service.Type,
        factory: @escaping (any Resolver, repeat each Argument) throws -> Service
    ) -> ServiceEntry<Service> {
        let box = FactoryBox<(repeat each Argument)>(
            make: { resolver, arguments in try factory(resolver, repeat each arguments) },
            spreader: argumentSpreader(repeat (each Argument).self)
        )
        return ServiceEntry(
            serviceType: serviceType,
            argumentsType: (any Resolver, repeat each Argument).self,
            factory: box,
            objectScope: defaultObjectScope
        )
    }

    /// Registers how to make `serviceType` from a resolver alone (no runtime arguments).
    ///
    /// ```swift
    /// container.register(AnimalType.self) { _ in Cat() }
    /// ```
    ///
    /// The same as the variadic form with no arguments, but resolved along a faster path.
    ///
    /// Inlinable so that the caller, which knows `Service`, supplies the registration's class metadata from
    /// its own cache instead of asking the runtime for it on every registration.
    @inlinable
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver) throws -> Service
    ) -> ServiceEntry<Service> {
        let entry = ServiceEntry(serviceType: serviceType, plainFactory: factory, objectScope: defaultObjectScope)
        addPlain(entry, as: serviceType, name: name)
        return entry
    }

    /// Stores a registration without runtime arguments made by ``register(_:name:factory:)-(_,_,(Resolver)->Service)``.
    @usableFromInline
    func addPlain<Service>(_ entry: ServiceEntry<Service>, as serviceType: Service.Type, name: String?) {
        add(entry, as: serviceType, key: ServiceKey(serviceType: serviceType, argumentsType: noArguments, name: name))
    }

    /// Registers a factory that takes all its arguments as one value of type `Arguments`; for extensions
    /// written for Swinject. Resolve such a registration with ``_resolve(name:option:invoker:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - factory: Makes the instance from the arguments.
    ///   - name: Tells apart registrations of the same type and argument types.
    ///   - option: An extension's extra key component.
    /// - Returns: The registration.
    @discardableResult
    public func _register<Service, Arguments>(
        _ serviceType: Service.Type,
        factory: @escaping (Arguments) -> Any,
        name: String? = nil,
        option: (any ServiceKeyOption)? = nil
    ) -> ServiceEntry<Service> {
        let entry = ServiceEntry(
            serviceType: serviceType,
            argumentsType: Arguments.self,
            factory: TupleFactory(factory),
            objectScope: defaultObjectScope
        )
        let key = ServiceKey(serviceType: serviceType, argumentsType: Arguments.self, name: name, option: option)
        add(entry, as: serviceType, key: key)
        return entry
    }

    /// Makes `type` resolve through `service`'s registration: same factory, scope, arguments and `initCompleted`
    /// callbacks, and (in `.graph` and `.container` scope) the same instance. When the registration is decorated, that
    /// instance is the decorated one, before or after this call (see
    /// ``decorate(_:name:decorator:)-(_,_,(Resolver,Service)->Service)``); so it is for a registration of another
    /// container (a parent's), decorated there or here.
    ///
    /// ```swift
    /// let dog = container.register(Dog.self) { _ in Dog() }
    /// container.forward(Animal.self, to: dog)
    /// ```
    public func forward<Type, Service>(_ type: Type.Type, name: String? = nil, to service: ServiceEntry<Service>) {
        // Another container's registration: forwarded as it would be there (see `ForeignForwards.swift`).
        if let owner = service.owner?.container, owner !== self {
            forward(type, name: name, to: service, ownedBy: owner)
            return
        }
        forwardHere(type, name: name, to: service)
    }

    /// Forwards `type` (under `name`) to `service` in this container; the body of ``forward(_:name:to:)``.
    func forwardHere<Type, Service>(_ type: Type.Type, name: String?, to service: ServiceEntry<Service>) {
        let key = ServiceKey(serviceType: type, argumentsType: service.argumentsType, name: name)
        // A registration with runtime arguments is decorated by the decorators of its type and name.
        let decorated = ServiceKey(serviceType: type, argumentsType: noArguments, name: name)
        guard Type.self != Service.self else {
            add(service, as: type, key: key)
            return
        }
        if hasDecorators(for: decorated) {
            forwardDecorated(type, key: key, to: service)
            return
        }
        add(service, as: type, key: key)
        // A decorator of `type` declared meanwhile may have looked before this forward was added.
        if hasDecorators(for: decorated) { forwardDecorated(type, key: key, to: service, onlyInPlaceOf: service) }
    }
}

extension ServiceEntry {
    /// Makes `type` (under `name`) resolve through this registration as well.
    ///
    /// ```swift
    /// container.register(Dog.self) { _ in Dog() }.implements(Animal.self)
    /// ```
    @discardableResult
    public func implements<Type>(_ type: Type.Type, name: String? = nil) -> ServiceEntry<Service> {
        owner?.container?.forward(type, name: name, to: self)
        return self
    }

    /// Makes each of the given types resolve through this registration as well.
    ///
    /// ```swift
    /// container.register(Dog.self) { _ in Dog() }.implements(Animal.self, Pet.self, Friend.self)
    /// ```
    @discardableResult
    public func implements<First, Second, each Other>(
        _ first: First.Type,
        _ second: Second.Type,
        _ others: repeat (each Other).Type
    ) -> ServiceEntry<Service> {
        implements(first)
        implements(second)
        _ = (repeat implements(each others))
        return self
    }
}
