import Dispatch

/// Registrations whose factories run on the main actor, for `@MainActor` classes such as view models.
///
/// ```swift
/// @MainActor final class ProfileModel {
///     init(api: API) { ... }
/// }
///
/// container.register(ProfileModel.self) { @MainActor r in ProfileModel(api: try r.require()) }
///
/// @MainActor func showProfile() throws {
///     let model = try container.require(ProfileModel.self)
/// }
/// ```
///
/// Write `@MainActor` on the closure: that selects these overloads. (In main-actor code, a closure without
/// it also compiles, because it takes on the actor of the code around it, but Weft then cannot tell that
/// the factory needs the main actor, and a resolve on another thread would run it there.)
///
/// Such a factory runs only when the service is resolved on the main actor: in main-actor code, or in
/// synchronous code it calls. Resolved anywhere else (a background thread, a `DispatchQueue.global()`
/// block, a detached task), `require` throws a ``ResolutionError`` with reason
/// ``ResolutionError/Reason/notOnMainActor`` and `resolve` returns `nil`; the program does not stop. A
/// `.container` or `.weak` instance that has already been made is returned anywhere: a `@MainActor` class is
/// `Sendable`, and the compiler keeps code elsewhere from touching its state. The registration's
/// `initCompleted` callbacks run right after the factory, on the main actor too.
extension Container {
    /// Registers how to make `serviceType` on the main actor.
    ///
    /// ```swift
    /// container.register(SettingsModel.self) { @MainActor r in SettingsModel(store: try r.require()) }
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: Tells apart registrations of the same type.
    ///   - factory: Makes the instance on the main actor; it may throw. What it returns must not stay
    ///     reachable from main-actor state (`sending`), since the caller may be non-isolated code.
    /// - Returns: The registration, to set its scope and `initCompleted` callbacks.
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping @MainActor (any Resolver) throws -> sending Service
    ) -> ServiceEntry<Service> {
        let entry = ServiceEntry(
            serviceType: serviceType,
            plainFactory: { (resolver: any Resolver) throws -> Service in try runOnMainActor(factory, resolver) },
            objectScope: defaultObjectScope
        )
        // An async resolve runs it on the main actor (see `AsyncResolver`). Set before the registration is
        // published: a resolve on another thread may find it as soon as it is added.
        entry.runsOnMainActor = true
        addPlain(entry, as: serviceType, name: name)
        return entry
    }

    /// Registers the result type of a factory that runs on the main actor.
    ///
    /// ```swift
    /// container.register { @MainActor r in SettingsModel(store: try r.require()) }
    /// ```
    ///
    /// - Parameters:
    ///   - name: Tells apart registrations of the same type.
    ///   - factory: Makes the instance on the main actor; it may throw.
    /// - Returns: The registration.
    @discardableResult
    public func register<Service>(
        name: String? = nil,
        factory: @escaping @MainActor (any Resolver) throws -> sending Service
    ) -> ServiceEntry<Service> {
        register(Service.self, name: name, factory: factory)
    }
}

/// Calls a `@MainActor` factory if the caller runs on the main actor; otherwise throws the
/// ``ResolutionError/Reason/notOnMainActor`` error for the registration being made.
func runOnMainActor<Service>(
    _ factory: @MainActor (any Resolver) throws -> sending Service,
    _ resolver: any Resolver
) throws -> Service {
    guard isOnMainActor() else {
        throw ResolutionError.fromInsideFactory(.notOnMainActor, serviceType: Service.self)
    }
    let made = try MainActor.assumeIsolated {
        MadeOnMainActor(instance: try factory(resolver))
    }
    return made.instance
}

/// Whether the caller runs on the main actor, so that `MainActor.assumeIsolated` will not stop the program.
///
/// The main actor runs its jobs on the main dispatch queue, which is not always the main thread: on Linux,
/// once the main thread has handed the queue over (`dispatchMain()`, an `async` main), a worker thread
/// drains it. So this asks dispatch whether the current queue is the main queue (the main thread counts as
/// on it before the handover), as the runtime's own isolation check does.
func isOnMainActor() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
}

/// A key set on the main queue only.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Carries an instance a `@MainActor` factory made out of `MainActor.assumeIsolated`, which returns only
/// `Sendable` values. Sound because the factory's result is `sending` (nothing on the main actor keeps it)
/// and `assumeIsolated` runs on the calling thread, which goes on using it.
private struct MadeOnMainActor<Service>: @unchecked Sendable {
    let instance: Service
}
