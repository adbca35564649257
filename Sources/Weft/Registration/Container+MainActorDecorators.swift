/// Decorators whose closures run on the main actor, as `register` takes `@MainActor` factories (see
/// `Container+MainActor.swift`), for decorators that wrap a service in a `@MainActor` class.
///
/// ```swift
/// container.decorate(Store.self) { @MainActor r, inner in ObservedStore(inner) }
/// ```
///
/// Write `@MainActor` on the closure: that selects these overloads. The decorator runs only when the service is
/// made on the main actor: resolved from main-actor code (or synchronous code it calls), or from async code,
/// which makes the service (its factory, then its decorators) on the main actor. Resolved anywhere else, `require`
/// throws a ``ResolutionError`` with reason ``ResolutionError/Reason/notOnMainActor`` and `resolve` returns
/// `nil`; a `.container` instance already made and decorated is returned anywhere. The other rules are those of
/// ``decorate(_:name:decorator:)``.
extension Container {
    /// Wraps every instance of `serviceType` (under `name`) that this container makes in what `decorator`,
    /// which runs on the main actor, returns.
    ///
    /// ```swift
    /// container.decorate(Store.self) { @MainActor r, inner in ObservedStore(inner) }
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service to decorate, as it is registered.
    ///   - name: The registration name of the service to decorate.
    ///   - decorator: Receives a resolver and the instance the factory (or the previous decorator) made, on the
    ///     main actor, and returns the instance to use instead; it may throw. What it returns must not stay
    ///     reachable from main-actor state (`sending`), since the caller may be non-isolated code.
    public func decorate<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        decorator: @escaping @MainActor (any Resolver, Service) throws -> sending Service
    ) {
        let onMainActor: (any Resolver, Service) throws -> Service = { resolver, inner in
            let handed = HandedToMainActor(inner)
            return try runOnMainActor({ @MainActor resolver in try decorator(resolver, handed.value) }, resolver)
        }
        add(Decorator(onMainActor, onMainActor: true), of: serviceType, name: name)
    }

    /// Wraps every instance of the type the `@MainActor` decorator returns that this container makes; the same
    /// as `decorate(_:name:decorator:)` with a `@MainActor` closure and the type inferred.
    ///
    /// ```swift
    /// container.decorate { @MainActor (r, inner: any Store) in ObservedStore(inner) }
    /// ```
    public func decorate<Service>(
        name: String? = nil,
        decorator: @escaping @MainActor (any Resolver, Service) throws -> sending Service
    ) {
        decorate(Service.self, name: name, decorator: decorator)
    }
}

extension Decorator {
    /// `instance` wrapped in this synchronous decorator from async code, inside the resolver's graph; on the main
    /// actor when the decorator is `@MainActor` and the caller is elsewhere.
    nonisolated(nonsending) func decorate(from resolver: AsyncResolver, _ instance: Service) async throws -> Service {
        guard onMainActor, !isOnMainActor() else { return try resolver.synchronously { try decorate($0, instance) } }
        let handed = HandedToMainActor(instance)
        let made = try await MainActor.run {
            HandedToMainActor(try resolver.synchronously { try self.decorate($0, handed.value) })
        }
        return made.value
    }
}

/// Carries the instance a decorator wraps to the main actor and the decorated one back. Sound because the
/// instance being made is reachable from nothing else until the resolve returns it, and the thread that hands it
/// over waits for the main actor's answer.
private struct HandedToMainActor<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
