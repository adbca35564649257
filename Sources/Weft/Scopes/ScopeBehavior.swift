/// What a scope does with the instances of its registrations: the one table that resolution, teardown,
/// verification and graph export read. Each built-in scope has its row; every custom scope has the same one
/// (shared, kept until it is reset, a lifetime of its own). A new built-in scope is a new row here.
struct ScopeBehavior: Equatable {
    /// How its registrations share instances, which decides how resolutions coordinate.
    let sharing: SharingPolicy
    /// How long its instances live, as the captive-dependency check compares them.
    let lifetime: Lifetime
    /// Whether a registration also keeps its instance as a typed copy, which the hot path reads without a cast,
    /// and hands instances that need teardown to its container, which tears them down when it ends.
    let keptByContainer: Bool
    /// Whether it is one of Weft's own, whose storage of a registration holds nothing before the registration
    /// makes an instance (a custom scope's factory may hand out a storage that already does), and whose storage
    /// is Weft's code (made under the registration's lock; a custom scope's is made with the lock let go).
    let isBuiltIn: Bool

    static let transient = ScopeBehavior(sharing: .transient, lifetime: .transient, keptByContainer: false)
    static let graph = ScopeBehavior(sharing: .perGraph, lifetime: .graph, keptByContainer: false)
    static let container = ScopeBehavior(sharing: .shared, lifetime: .container, keptByContainer: true)
    static let weak = ScopeBehavior(sharing: .shared, lifetime: .weak, keptByContainer: false)
    /// A `.scoped` registration's instance is shared within a scope and kept by it, in the scope's slot for it
    /// (see ``Container/scopeSlot(for:)``).
    static let scoped = ScopeBehavior(sharing: .perScope, lifetime: .scoped, keptByContainer: false)

    private init(sharing: SharingPolicy, lifetime: Lifetime, keptByContainer: Bool, isBuiltIn: Bool = true) {
        self.sharing = sharing
        self.lifetime = lifetime
        self.keptByContainer = keptByContainer
        self.isBuiltIn = isBuiltIn
    }

    /// The row of a custom scope.
    static func custom(_ scope: any ObjectScopeProtocol) -> ScopeBehavior {
        ScopeBehavior(
            sharing: .shared, lifetime: .custom(ObjectIdentifier(scope)), keptByContainer: false, isBuiltIn: false)
    }

    /// The row of `scope`.
    static func of(_ scope: any ObjectScopeProtocol) -> ScopeBehavior {
        (scope as? ObjectScope)?.behavior ?? .custom(scope)
    }
}

/// How a registration's scope shares its instances, which decides how resolutions coordinate.
@usableFromInline enum SharingPolicy: Sendable {
    /// A new instance every time: nothing to look up or coordinate.
    case transient
    /// One instance per graph (`.graph`): a graph is one thread's, and its instances wait for nobody, unless it can
    /// be named from outside (a `Lazy` or its ``GraphIdentifier`` escaped), when other threads may resolve in it too.
    case perGraph
    /// Instances shared across graphs (`.container`, `.weak`, custom scopes): built once, with other
    /// threads waiting until the builder has finished the instance.
    case shared
    /// A `.scoped` registration asked for where no scope is: it cannot be made (a scope makes and uses its
    /// own copy of the registration, whose policy is ``shared``).
    case perScope
}

/// How long a scope keeps instances, as the captive-dependency check compares them.
enum Lifetime: Equatable {
    case transient
    case graph
    case weak
    case container
    /// `.scoped`: one instance per scope, released when the scope ends.
    case scoped
    /// A custom scope: instances live until the scope is reset, independently of other scopes.
    case custom(ObjectIdentifier)

    /// Whether the container itself keeps the instances beyond an object graph: `.container` and custom scopes.
    var keepsInstances: Bool {
        switch self {
        case .container, .custom, .scoped: return true
        case .transient, .graph, .weak: return false
        }
    }
}
