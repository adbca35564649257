/// Keeps the instances of one registration on behalf of its ``ObjectScope``.
///
/// The container calls one storage from one thread at a time, so an implementation need not be
/// thread-safe itself, and holds none of its locks meanwhile, so its methods may use the container;
/// they must not resolve the registration they store, which would wait for its own call to end.
public protocol InstanceStorage: AnyObject {
    /// The instance kept outside any particular graph.
    var instance: Any? { get set }
    /// Called when a graph that used this storage is complete.
    func graphResolutionCompleted()
    /// The instance for `graph`.
    func instance(inGraph graph: GraphIdentifier) -> Any?
    /// Keeps `instance` for `graph`.
    func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier)
}

extension InstanceStorage {
    /// Does nothing.
    public func graphResolutionCompleted() {}
    /// Returns ``instance``.
    public func instance(inGraph _: GraphIdentifier) -> Any? { instance }
    /// Sets ``instance``.
    public func setInstance(_ instance: Any?, inGraph _: GraphIdentifier) { self.instance = instance }
}

/// Keeps an instance for the object graph it was made in; storage of the `.graph` scope.
///
/// The instance is held strongly until its graph completes and weakly afterwards, so that a graph
/// restored with ``Container/withObjectGraph(_:closure:)`` finds the instances still alive. The container
/// uses it only for graphs that can be resolved into again (see <doc:ObjectScopes>).
public final class GraphStorage: InstanceStorage {
    @exclusivity(unchecked) private var instances: [GraphIdentifier: WeakBox] = [:]
    /// The instance of the graph being resolved, held strongly until the graph completes.
    @exclusivity(unchecked) public var instance: Any?

    /// Makes an empty storage.
    public init() {}

    /// Drops the strong hold and forgets graphs whose instances are gone.
    public func graphResolutionCompleted() {
        _ = completeGraphHandingBackReads()
    }

    /// ``graphResolutionCompleted()`` for a registration that holds its lock: returns the instances it read to
    /// tell which graphs' instances are gone. Each read makes a strong reference, which is the last one when the
    /// thread that held the instance lets go of it meanwhile: the caller releases them after the lock, since the
    /// instance's deinit may call back into the container.
    func completeGraphHandingBackReads() -> [Any] {
        instance = nil
        var read: [Any] = []
        instances = instances.filter { _, box in
            guard let object = box.value else { return false }
            read.append(object)
            return true
        }
        return read
    }

    /// The instance made in `graph`, if it is still alive.
    public func instance(inGraph graph: GraphIdentifier) -> Any? {
        instances[graph]?.value
    }

    /// Keeps `instance` for `graph`.
    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        self.instance = instance
        if let instance {
            instances[graph] = WeakBox(instance)
        } else {
            instances[graph] = nil
        }
    }
}

/// Keeps its instance until it is discarded; storage of the `.container` scope.
public final class PermanentStorage: InstanceStorage {
    /// The kept instance.
    @exclusivity(unchecked) public var instance: Any?

    /// Makes an empty storage.
    public init() {}
}

/// Keeps nothing; storage of the `.transient` scope.
public final class TransientStorage: InstanceStorage {
    /// Always `nil`; setting it does nothing.
    public var instance: Any? {
        get { nil }
        set {}  // swift-format-ignore
    }

    /// Makes the storage.
    public init() {}
}

/// Keeps a class instance only while something else holds it; value types are not kept.
public final class WeakStorage: InstanceStorage {
    private var box = WeakBox(nil)

    /// The instance, while something else still holds it.
    public var instance: Any? {
        get { box.value }
        set { box = WeakBox(newValue) }
    }

    /// Makes an empty storage.
    public init() {}
}

/// Combines storages: an instance is kept while any of them keeps it.
public final class CompositeStorage: InstanceStorage {
    private let components: [any InstanceStorage]

    /// The first instance any component keeps; setting it sets every component.
    ///
    /// Each component is read once: a weakly kept instance can die between two reads.
    public var instance: Any? {
        get {
            for component in components {
                if let instance = component.instance { return instance }
            }
            return nil
        }
        set {
            for component in components { component.instance = newValue }
        }
    }

    /// Combines `components`, asked in order.
    public init(_ components: [any InstanceStorage]) {
        self.components = components
    }

    /// Forwards to every component.
    public func graphResolutionCompleted() {
        for component in components { component.graphResolutionCompleted() }
    }

    /// Sets the instance for `graph` in every component.
    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        for component in components { component.setInstance(instance, inGraph: graph) }
    }

    /// The first instance any component keeps for `graph`.
    public func instance(inGraph graph: GraphIdentifier) -> Any? {
        for component in components {
            if let instance = component.instance(inGraph: graph) { return instance }
        }
        return nil
    }
}

/// A weak reference to a class instance held in an `Any`; value types are not kept.
struct WeakBox {
    private weak var object: AnyObject?

    init(_ value: Any?) {
        if let value, type(of: value as Any) is AnyClass {
            object = value as AnyObject
        } else {
            object = nil
        }
    }

    var value: Any? { object }
}
