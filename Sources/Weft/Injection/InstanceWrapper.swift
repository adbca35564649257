/// A type the container makes around a registration of another type, without registering it:
/// `Lazy<T>`, `Provider<T>` and `Optional<T>` wrap the registration of `T`.
protocol InstanceWrapper {
    /// The wrapped type, `T`.
    static var wrappedType: Any.Type { get }
    /// Whether the wrapper keeps the graph it was made in, to make its instance there later.
    static var capturesGraph: Bool { get }
    /// Makes the wrapper around the registration for `key`. `factory` makes the wrapped instance in the given
    /// graph (or the current or a new one when `nil`); it is `nil` when `T` is not registered.
    init?(
        container: Container,
        graph: GraphIdentifier?,
        key: ServiceKey,
        factory: ((GraphIdentifier?) throws -> Any)?
    ) throws
}

extension Optional: InstanceWrapper {
    static var wrappedType: Any.Type { Wrapped.self }
    static var capturesGraph: Bool { false }

    init?(
        container _: Container,
        graph _: GraphIdentifier?,
        key _: ServiceKey,
        factory: ((GraphIdentifier?) throws -> Any)?
    ) throws {
        guard let factory else {
            self = .none
            return
        }
        self = try factory(nil) as? Wrapped
    }
}

/// What a wrapper's factory made, as the wrapped type; a type mismatch otherwise.
func wrappedInstance<Service>(_ instance: Any, as _: Service.Type) throws -> Service {
    guard let service = instance as? Service else {
        throw ResolutionError(
            reason: .typeMismatch,
            key: ServiceKey(serviceType: Service.self, argumentsType: (any Resolver).self),
            path: [String(describing: Service.self)]
        )
    }
    return service
}
