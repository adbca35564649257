/// Delays making a dependency until it is first used, then keeps it.
///
/// `Lazy<T>` needs no registration of its own: resolving it works whenever `T` is registered. The instance
/// is made in the object graph the `Lazy` was resolved in, so graph-scoped services are shared with it.
/// Injecting `Lazy` is one way to break a circular dependency between initializers.
///
/// ```swift
/// container.register(Reporter.self) { r in Reporter(database: r.resolve(Lazy<Database>.self)!) }
/// // ... later, inside Reporter:
/// database.instance.save(report)
/// ```
public final class Lazy<Service>: InstanceWrapper, @unchecked Sendable {
    static var wrappedType: Any.Type { Service.self }
    static var capturesGraph: Bool { true }

    private let factory: (GraphIdentifier?) throws -> Any
    private let graph: GraphIdentifier?
    /// The async graph the `Lazy` was resolved in, if any: asked from async code while that graph's resolve goes
    /// on, the `Lazy` makes its instance there as a synchronous part of the graph, which finds the graph's
    /// instances that async factories made (see ``ProviderGraph``).
    private let asyncGraph: ProviderGraph?
    /// The registration's key, for the errors of a wait that would close a cycle across threads.
    private let key: ServiceKey
    private let made = ExclusiveBuild<Service>()

    init?(
        container: Container,
        graph: GraphIdentifier?,
        key: ServiceKey,
        factory: ((GraphIdentifier?) throws -> Any)?
    ) {
        guard let factory else { return nil }
        self.factory = factory
        self.graph = graph
        self.key = key
        asyncGraph = ProviderGraph(graph, container: container)
    }

    /// The instance: made on first access (once, even when several threads ask at the same time),
    /// the same one afterwards.
    ///
    /// Stops the program if the instance cannot be made (as Swinject's does); use ``get()`` to get
    /// the error instead.
    public var instance: Service {
        do {
            return try get()
        } catch {
            fatalError(InjectionMessages.lazyFailed(Service.self, error: error))
        }
    }

    /// The instance, made on first call; throws a ``ResolutionError`` if it cannot be made.
    ///
    /// While one thread makes the instance, the others wait for it. A wait that would close a cycle of threads
    /// waiting for each other (this thread makes something the maker needs) fails with
    /// ``ResolutionError/Reason/circularDependency`` instead of waiting forever.
    public func get() throws -> Service {
        try made.value(
            for: key,
            read: { $0 },
            make: {
                let service = try make()
                return (service, service)
            }
        )
    }

    private func make() throws -> Service {
        if let asyncGraph, let made = try asyncGraph.make(factory) {
            return try wrappedInstance(made, as: Service.self)
        }
        return try wrappedInstance(try factory(graph), as: Service.self)
    }
}
