/// Registration from an initializer: Weft resolves each of the initializer's parameters by its type, so
/// the factory need not be written, and it knows the service's dependencies without running anything.
///
/// ```swift
/// container.autoregister(ParentProtocol.self, initializer: Parent.init)
/// container.autoregister(Child.self, initializer: Child.init).inObjectScope(.container)
/// ```
///
/// The initializer may take any number of parameters (the list is a parameter pack, not a set of
/// overloads). Each parameter is resolved with `require` under no name, so a missing dependency fails
/// with a ``ResolutionError`` naming the path. Some parameter types are resolved specially:
///
/// - `Engine?`: `nil` when `Engine` is not registered (a registered `Engine` that fails to build still
///   fails). ``Container/verify(strict:)`` does not count it as missing.
/// - `Lazy<Engine>` and `Provider<Engine>`: the instance is made on first use (then kept), or anew on
///   each use. A `Provider` never holds on to an instance, so it is the way for a singleton to use a
///   shorter-lived service without making it a captive dependency.
///
/// Runtime arguments, any number of them, go to the parameters of their types wherever these appear in the
/// initializer, as in SwinjectAutoregistration (``autoregister(_:name:argument:initializer:)``); its other
/// parameters are resolved.
///
/// ``Container/verify(strict:)`` checks an autoregistered service from these declared dependencies,
/// without calling the initializer.
extension Container {
    /// Registers `serviceType`, made by `initializer` from dependencies resolved by their types.
    ///
    /// ```swift
    /// final class Parent: ParentProtocol {
    ///     init(child: ChildProtocol, logger: Logger?) { ... }
    /// }
    ///
    /// container.autoregister(ParentProtocol.self, initializer: Parent.init)
    ///     .inObjectScope(.container)
    ///     .initCompleted { r, parent in parent.start() }
    /// ```
    ///
    /// When the type has several initializers, name the one to use: `Parent.init(child:logger:)`.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register, usually a protocol.
    ///   - name: Tells apart registrations of the same type (the dependencies are resolved without a name).
    ///   - initializer: Makes the instance; each parameter is resolved from the container. It may throw.
    /// - Returns: The registration, to set its scope, `initCompleted` callbacks and forwarded types.
    @discardableResult
    public func autoregister<Service, each Dependency>(
        _ serviceType: Service.Type,
        name: String? = nil,
        initializer: @escaping (repeat each Dependency) throws -> Service
    ) -> ServiceEntry<Service> {
        let entry = ServiceEntry(
            serviceType: serviceType,
            plainFactory: { resolver in try initializer(repeat resolver.require((each Dependency).self)) },
            objectScope: defaultObjectScope
        )
        return publish(entry, name: name, dependencies: DeclaredDependency.list(repeat (each Dependency).self))
    }

    /// Registers the result type of `initializer`, made from dependencies resolved by their types.
    ///
    /// ```swift
    /// container.autoregister(initializer: Parent.init)   // registers Parent
    /// ```
    ///
    /// - Parameters:
    ///   - name: Tells apart registrations of the same type.
    ///   - initializer: Makes the instance; each parameter is resolved from the container. It may throw.
    /// - Returns: The registration.
    @discardableResult
    public func autoregister<Service, each Dependency>(
        name: String? = nil,
        initializer: @escaping (repeat each Dependency) throws -> Service
    ) -> ServiceEntry<Service> {
        autoregister(Service.self, name: name, initializer: initializer)
    }

    /// Registers a factory taking runtime arguments, with the dependencies its initializer declares.
    func autoregister<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        dependencies: [DeclaredDependency],
        factory: @escaping (any Resolver, repeat each Argument) throws -> Service
    ) -> ServiceEntry<Service> {
        publish(entry(serviceType, factory: factory), name: name, dependencies: dependencies)
    }

    /// Records the declared dependencies on `entry`, then adds it (so no reader sees it without them).
    func publish<Service>(
        _ entry: ServiceEntry<Service>,
        name: String?,
        dependencies: [DeclaredDependency]
    ) -> ServiceEntry<Service> {
        entry.declaredDependencies = dependencies
        add(
            entry,
            as: Service.self,
            key: ServiceKey(serviceType: Service.self, argumentsType: entry.argumentsType, name: name)
        )
        return entry
    }
}

/// A dependency an autoregistered service declares through the type of one of its initializer's parameters.
///
/// Verification reads these instead of building the service: an autoregistered service's dependencies are
/// known from its initializer's signature.
struct DeclaredDependency: Sendable {
    /// How the initializer takes the dependency.
    typealias Access = DependencyGraph.Edge.Access

    /// The parameter's type, as the initializer takes it: `Engine`, `Engine?`, `Lazy<Engine>`.
    let parameterType: Any.Type
    /// The service behind a wrapper: `Engine` in all three examples. The parameter's own type otherwise.
    let serviceType: Any.Type
    let access: Access

    /// The dependency of a parameter of type `Parameter`.
    init<Parameter>(_: Parameter.Type) {
        parameterType = Parameter.self
        if let wrapper = Parameter.self as? any DeclaredWrapper.Type {
            serviceType = wrapper.wrappedType
            access = wrapper.declaredAccess
        } else {
            serviceType = Parameter.self
            access = .direct
        }
    }

    /// The key the initializer's parameter is resolved with (no name, no arguments).
    var parameterKey: ServiceKey {
        ServiceKey(serviceType: parameterType, argumentsType: noArguments)
    }

    /// The key of the service behind the wrapper.
    var serviceKey: ServiceKey {
        ServiceKey(serviceType: serviceType, argumentsType: noArguments)
    }

    /// The dependencies of an initializer taking `parameters`, in order.
    static func list<each Parameter>(_ parameters: repeat (each Parameter).Type) -> [DeclaredDependency] {
        var result: [DeclaredDependency] = []
        for parameter in repeat each parameters {
            result.append(DeclaredDependency(parameter))
        }
        return result
    }
}

/// A wrapper that the container makes around a registration (see ``InstanceWrapper``), with how a service
/// that takes it depends on the wrapped one.
protocol DeclaredWrapper: InstanceWrapper {
    /// How a parameter of this type depends on ``InstanceWrapper/wrappedType``.
    static var declaredAccess: DeclaredDependency.Access { get }
}

extension Optional: DeclaredWrapper {
    static var declaredAccess: DeclaredDependency.Access { .optional }
}

extension Lazy: DeclaredWrapper {
    static var declaredAccess: DeclaredDependency.Access { .lazy }
}

extension Provider: DeclaredWrapper {
    static var declaredAccess: DeclaredDependency.Access { .provider }
}
