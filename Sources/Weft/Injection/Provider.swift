/// Makes a new instance of a dependency each time it is asked, in a new object graph.
///
/// `Provider<T>` needs no registration of its own: resolving it works whenever `T` is registered.
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

    init?(
        container _: Container,
        graph _: GraphIdentifier?,
        key _: ServiceKey,
        factory: ((GraphIdentifier?) throws -> Any)?
    ) {
        guard let factory else { return nil }
        self.factory = factory
    }

    /// A new instance (shared only with what the current graph already holds, when asked from inside a
    /// synchronous factory; inside an `async` factory it is made in a new graph, as outside any resolve). Stops
    /// the program if it cannot be made; use ``get()`` to get the error instead.
    public var instance: Service {
        do {
            return try get()
        } catch {
            fatalError(InjectionMessages.providerFailed(Service.self, error: error))
        }
    }

    /// A new instance; throws a ``ResolutionError`` if it cannot be made.
    public func get() throws -> Service {
        try wrappedInstance(try factory(nil), as: Service.self)
    }
}
