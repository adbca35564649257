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
    /// How a registration in this scope shares its instances: known for the built-in scopes, `.shared` for every
    /// other, so that a registration reads it rather than comparing the scope with each built-in one.
    let sharingPolicy: SharingPolicy

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
        self.sharingPolicy = .shared
    }

    /// Makes a built-in scope, whose registrations share their instances as `sharingPolicy` says.
    init(
        storageFactory: @escaping () -> any InstanceStorage,
        description: String,
        sharingPolicy: SharingPolicy
    ) {
        self.storageFactory = storageFactory
        self.description = description
        self.parent = nil
        self.sharingPolicy = sharingPolicy
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
        sharingPolicy: .transient
    )

    /// One instance per object graph (one top-level resolve); the default scope.
    public static let graph = ObjectScope(
        storageFactory: GraphStorage.init,
        description: "graph",
        sharingPolicy: .perGraph
    )

    /// One instance per container (a singleton), shared with its child containers.
    public static let container = ObjectScope(storageFactory: PermanentStorage.init, description: "container")

    /// One instance for as long as someone outside the container holds it.
    public static let weak = ObjectScope(
        storageFactory: WeakStorage.init,
        description: "weak",
        parent: ObjectScope.graph
    )

    /// Whether `scope` is one of Weft's own, whose storage of a registration holds nothing before the
    /// registration makes an instance (a custom scope's factory may hand out a storage that already does).
    static func isBuiltIn(_ scope: any ObjectScopeProtocol) -> Bool {
        scope === transient || scope === graph || scope === container || scope === weak || scope === scoped
    }
}
