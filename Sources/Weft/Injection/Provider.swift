/// Makes a new instance of a dependency each time it is asked.
///
/// `Provider<T>` needs no registration of its own: resolving it works whenever `T` is registered. Asked during a
/// resolve (from a factory), it makes the instance in that resolve's object graph, sharing its `.graph`
/// instances; so it does from async code while the async resolve it was resolved in goes on. Otherwise each
/// instance is made in a new object graph.
///
/// ```swift
/// container.register(Spawner.self) { r in Spawner(enemies: r.resolve(Provider<Enemy>.self)!) }
/// // ... inside Spawner:
/// let next = enemies.instance
/// ```
public final class Provider<Service>: InstanceWrapper, @unchecked Sendable {
    static var wrappedType: Any.Type { Service.self }
    static var capturesGraph: Bool { false }

    private let factory: (GraphIdentifier?) throws -> Any
    /// The async graph the provider was resolved in, if any: asked from async code while that graph's resolve goes
    /// on, the provider makes its instance there, as it joins the resolve in flight on a synchronous factory's
    /// thread.
    private let asyncGraph: ProviderGraph?

    init?(
        container: Container,
        graph: GraphIdentifier?,
        key _: ServiceKey,
        factory: ((GraphIdentifier?) throws -> Any)?
    ) {
        guard let factory else { return nil }
        self.factory = factory
        asyncGraph = ProviderGraph(graph, container: container)
    }

    /// A new instance (sharing the `.graph` instances of the resolve going on, see ``Provider``). Stops the
    /// program if it cannot be made; use ``get()`` to get the error instead.
    public var instance: Service {
        do {
            return try get()
        } catch {
            fatalError(InjectionMessages.providerFailed(Service.self, error: error))
        }
    }

    /// A new instance; throws a ``ResolutionError`` if it cannot be made.
    public func get() throws -> Service {
        if let asyncGraph, let made = try asyncGraph.make(factory) {
            return try wrappedInstance(made, as: Service.self)
        }
        return try wrappedInstance(try factory(nil), as: Service.self)
    }
}
