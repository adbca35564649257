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
    /// The registration's key, for the errors of a wait that would close a cycle across threads.
    let key: ServiceKey
    /// Guards `made` and `owner`; never held while the factory runs.
    private let lock = Lock()
    private var made: Service?
    /// The resolution (one per thread) making the instance right now.
    private var owner: ResolutionState?

    init?(
        container _: Container,
        graph: GraphIdentifier?,
        key: ServiceKey,
        factory: ((GraphIdentifier?) throws -> Any)?
    ) {
        guard let factory else { return nil }
        self.factory = factory
        self.graph = graph
        self.key = key
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
            fatalError("Weft: Lazy<\(Service.self)> could not make its instance.\n\(error)")
        }
    }

    /// What ``get()`` does next, decided under the lock.
    private enum Step {
        case done(Service)
        case make
        case makeAgain
        case wait
    }

    /// The instance, made on first call; throws a ``ResolutionError`` if it cannot be made.
    ///
    /// While one thread makes the instance, the others wait for it. A wait that would close a cycle of threads
    /// waiting for each other (this thread makes something the maker needs) fails with
    /// ``ResolutionError/Reason/circularDependency`` instead of waiting forever.
    public func get() throws -> Service {
        let state = ResolutionState.current
        while true {
            let step: Step = lock.withLock {
                if let made { return .done(made) }
                guard let owner else {
                    owner = state
                    return .make
                }
                return owner === state ? .makeAgain : .wait
            }
            switch step {
            case .done(let service):
                return service
            case .makeAgain:
                // Asked again while this thread makes it (a factory reads it): the engine reports the cycle, or
                // the graph already has the instance. Only the outer call keeps what it made.
                return try make()
            case .wait:
                try BuildCoordinator.waitWhileBuilt(self, key: key, state: state)
            case .make:
                do {
                    let service = try make()
                    lock.withLock {
                        made = service
                        owner = nil
                    }
                    BuildCoordinator.condition.broadcast()
                    return service
                } catch {
                    lock.withLock { owner = nil }
                    BuildCoordinator.condition.broadcast()
                    throw error
                }
            }
        }
    }

    private func make() throws -> Service {
        let instance = try factory(graph)
        guard let service = instance as? Service else {
            throw ResolutionError(
                reason: .typeMismatch,
                key: ServiceKey(serviceType: Service.self, argumentsType: (any Resolver).self),
                path: [String(describing: Service.self)]
            )
        }
        return service
    }
}

extension Lazy: BuildWaitTarget {
    var waitBuilder: ResolutionState? { lock.withLock { owner } }
    var offersInstance: Bool { false }
}
