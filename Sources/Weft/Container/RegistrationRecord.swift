/// What a container keeps for registering rather than resolving: its behaviors, the weak reference its
/// registrations share, its decorators and collections, its forwards across containers, and the registrations it
/// replaced or removed. Guarded by the container's lock.
///
/// An object of its own, made on first need (see ``Container/registrationRecordLocked()``): a scope, made and
/// released for every unit of work, seldom registers anything, and each of these fields stored in the container
/// itself would cost every scope its initialisation and its release.
///
/// Its fields are read and written only under that lock, which already excludes overlapping access: unchecked, so
/// that registering pays no dynamic exclusivity check for them.
final class RegistrationRecord {
    /// Registrations replaced or removed, kept until no resolve that could have found them still runs (see
    /// `Container+Retirement.swift`).
    @exclusivity(unchecked) var retired = RetiredRegistrations()
    @exclusivity(unchecked) var behaviors: [any Behavior] = []
    /// The weak reference to the container that its registrations share; made by the first one.
    @exclusivity(unchecked) var sharedReference: ContainerReference?
    /// Decorators and collections declared in the container (see `Container+Decorators.swift` and
    /// `Container+Collections.swift`); nil until the first.
    @exclusivity(unchecked) var compositions: CompositionTable?
    /// The containers that forward types to this container's registrations, and the types this container forwards
    /// to another's (see `ForeignForwards.swift`); nil until the first such forward.
    @exclusivity(unchecked) var foreignForwards: ForeignForwards?
    /// For requests with runtime arguments of types no registration declares: the key of the registration whose
    /// declared types took them, by the request's key, while the registries are at `version` (see
    /// `OpenedArguments.swift`).
    @exclusivity(unchecked) var openedArguments: (version: UInt64, keys: [ServiceKey: ServiceKey]) = (0, [:])
}

extension Container {
    /// This container's ``RegistrationRecord``, made on first need; the caller holds `lock`. Inlined: every
    /// registration reads it, and only the first makes it.
    @inline(__always)
    func registrationRecordLocked() -> RegistrationRecord {
        if let registrationRecord { return registrationRecord }
        return makeRegistrationRecordLocked()
    }

    /// Makes this container's ``RegistrationRecord``; the caller holds `lock`.
    @inline(never)
    private func makeRegistrationRecordLocked() -> RegistrationRecord {
        let made = RegistrationRecord()
        registrationRecord = made
        return made
    }

    /// The decorators and collections declared in this container; the caller holds `lock`.
    var compositions: CompositionTable? {
        get { registrationRecord?.compositions }
        set { registrationRecordLocked().compositions = newValue }
    }

    /// Whether this container made its ``CompositionTable`` (a registration it adds then takes the composed path of
    /// `add`, see `Container+ComposedAdd.swift`); for tests.
    var hasCompositionTable: Bool {
        lock.withLock { compositions != nil }
    }
}
