/// Decides how instances of a registration are shared, by making an ``InstanceStorage`` for it.
public protocol ObjectScopeProtocol: AnyObject, Sendable {
    /// Makes the storage for one registration; called when the registration first needs one, without any of
    /// the container's locks held (it may use the container). When threads race to make it, each may call
    /// this, and one storage is kept.
    func makeStorage() -> any InstanceStorage
}

/// An object scope made from a storage factory; the built-in scopes are instances of it.
///
/// ```swift
/// extension ObjectScope {
///     static let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
/// }
/// container.register(Session.self) { _ in Session() }.inObjectScope(.session)
/// container.resetObjectScope(.session)   // at logout
/// ```
public final class ObjectScope: ObjectScopeProtocol, CustomStringConvertible, @unchecked Sendable {
    /// The scope's name, as the container's description prints it.
    public let description: String
    private let storageFactory: () -> any InstanceStorage
    private let parent: (any ObjectScopeProtocol)?
    /// A built-in scope's row of ``ScopeBehavior``; nil for every other (see ``behavior``).
    private let builtIn: ScopeBehavior?

    /// What this scope does with instances: a built-in scope's own row, the custom row for every other, so that
    /// a registration reads it rather than comparing the scope with each built-in one.
    var behavior: ScopeBehavior { builtIn ?? .custom(self) }

    /// Makes a scope.
    ///
    /// - Parameters:
    ///   - storageFactory: Makes the storage for one registration.
    ///   - description: The scope's name.
    ///   - parent: When given, each storage combines this scope's storage with the parent's.
    public init(
        storageFactory: @escaping () -> any InstanceStorage,
        description: String = "",
        parent: (any ObjectScopeProtocol)? = nil
    ) {
        self.storageFactory = storageFactory
        self.description = description
        self.parent = parent
        self.builtIn = nil
    }

    /// Makes a built-in scope, which does with instances what its `behavior` row says.
    init(
        storageFactory: @escaping () -> any InstanceStorage,
        description: String,
        behavior: ScopeBehavior,
        parent: (any ObjectScopeProtocol)? = nil
    ) {
        self.storageFactory = storageFactory
        self.description = description
        self.parent = parent
        self.builtIn = behavior
    }

    /// Calls the storage factory (combined with the parent scope's storage when there is one).
    public func makeStorage() -> any InstanceStorage {
        if let parent {
            return CompositeStorage([storageFactory(), parent.makeStorage()])
        }
        return storageFactory()
    }

    /// A new instance every time the service is resolved.
    public static let transient = ObjectScope(
        storageFactory: TransientStorage.init,
        description: "transient",
        behavior: .transient
    )

    /// One instance per object graph (one top-level resolve); the default scope.
    public static let graph = ObjectScope(
        storageFactory: GraphStorage.init,
        description: "graph",
        behavior: .graph
    )

    /// One instance per container (a singleton), shared with its child containers.
    public static let container = ObjectScope(
        storageFactory: PermanentStorage.init,
        description: "container",
        behavior: .container
    )

    /// One instance per container, like ``container``, but reset on its own: `resetObjectScope(.cached)`
    /// discards these instances (and what was made with them) and keeps the `.container` singletons.
    ///
    /// ```swift
    /// container.register(UserSession.self) { _ in UserSession() }.inObjectScope(.cached)
    /// container.resetObjectScope(.cached)   // at log-out
    /// ```
    ///
    /// Resolver's and Factory's `.cached` scope.
    public static let cached = ObjectScope(
        storageFactory: PermanentStorage.init,
        description: "cached",
        behavior: .container
    )

    /// One instance for as long as someone outside the container holds it.
    public static let weak = ObjectScope(
        storageFactory: WeakStorage.init,
        description: "weak",
        behavior: .weak,
        parent: ObjectScope.graph
    )
}
