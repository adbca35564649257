/// What the user configured for one registration after `register`: the scope its instances live in and its
/// `initCompleted` callbacks, with what the engine derives from the scope (its row of ``ScopeBehavior`` and the
/// sharing policy). What the registration's instances leave behind lives apart, in its ``InstanceSlot``.
///
/// A value that is never changed in place: ``ServiceEntry/inObjectScope(_:)-(ObjectScopeProtocol)`` and
/// ``ServiceEntry/initCompleted(_:)``, Swinject's builder API, called after `register` and possibly after the
/// registration is published, build a new value and swap it in under the registration's lock (and bump the registry
/// version, so that lookups cache it anew). Swapped rather than mutated, field by field, so that the derived fields
/// are always those of the scope and callbacks beside them: a reader under the lock never sees a new scope with
/// the old policy, nor callbacks without `hasCallbacks`, and a copy it takes stays one consistent configuration
/// after it lets go of the lock (the description and the callbacks run from such copies, outside the lock).
struct RegistrationConfiguration<Service> {
    /// The scope the registration's instances live in (`.graph` unless changed).
    let scope: any ObjectScopeProtocol
    /// The scope's row of ``ScopeBehavior``, kept so that no path compares the scope with the built-in ones.
    let behavior: ScopeBehavior
    /// How the registration shares its instances (see ``policy(of:)``); kept beside `scope` and
    /// `initCompletedActions` so that the hot path reads no generic array or existential.
    let policy: SharingPolicy
    /// The `initCompleted` callbacks, in the order they were added. Nil until the first callback: an empty array
    /// of a generic function type would request its metadata.
    let initCompletedActions: [(any Resolver, Service) throws -> Void]?
    /// Whether there are callbacks: read where the array, generic, is not.
    let hasCallbacks: Bool

    /// The configuration of a new registration in `scope`, without callbacks.
    @inline(__always)
    init(scope: ObjectScope) {
        self.init(scope: scope, behavior: scope.behavior, initCompletedActions: nil)
    }

    @inline(__always)
    private init(
        scope: any ObjectScopeProtocol,
        behavior: ScopeBehavior,
        initCompletedActions: [(any Resolver, Service) throws -> Void]?
    ) {
        self.scope = scope
        self.behavior = behavior
        self.policy = Self.policy(of: behavior)
        self.initCompletedActions = initCompletedActions
        self.hasCallbacks = initCompletedActions != nil
    }

    /// This configuration with its instances in `scope` instead.
    func inScope(_ scope: any ObjectScopeProtocol) -> Self {
        Self(scope: scope, behavior: ScopeBehavior.of(scope), initCompletedActions: initCompletedActions)
    }

    /// This configuration with `action` added after its callbacks.
    func addingInitCompleted(_ action: @escaping (any Resolver, Service) throws -> Void) -> Self {
        Self(scope: scope, behavior: behavior, initCompletedActions: (initCompletedActions ?? []) + [action])
    }

    /// This configuration's scope with the callbacks of `other` (a decorated copy follows the callbacks of the
    /// registration it copies, in a scope of its own; see `DecoratedCopies.swift`).
    func withCallbacks(of other: Self) -> Self {
        Self(scope: scope, behavior: behavior, initCompletedActions: other.initCompletedActions)
    }

    /// The policy of a registration in a scope that behaves as `behavior`.
    ///
    /// A value has no identity to share: a graph-scoped registration of a struct, enum or tuple runs its
    /// factory for every request, as Swinject does (its graph storage keeps values through a weak box, which
    /// never holds one). A protocol or `Any` service may hold a class instance, so it shares as the scope says.
    @inline(__always)
    static func policy(of behavior: ScopeBehavior) -> SharingPolicy {
        switch behavior.sharing {
        case .perGraph where TypeKind.isPlainValue(Service.self): return .transient
        default: return behavior.sharing
        }
    }
}
