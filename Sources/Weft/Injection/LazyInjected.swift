/// A property whose value is resolved on first access, then kept until ``release()``.
///
/// ```swift
/// final class ClassC {
///     @LazyInjected var p: ClassP
///
///     func release() {
///         $p.release()   // drops the instance; the next access resolves again
///     }
/// }
/// ```
///
/// The container is the one given, or else ``Container/shared`` as it is at the first access (not when
/// the enclosing object was made). When several threads access the property for the first time at once,
/// one of them resolves it and the others wait for that instance.
///
/// If the service cannot be resolved, reading the property stops the program with a message that contains
/// the ``ResolutionError`` and the file and line of the declaration; `try $p.get()` throws the error
/// instead.
///
/// A lazily injected parent is a strong reference: `@LazyInjected var p` in a child that its parent keeps
/// makes a reference cycle that lasts until ``release()`` (or ``WeakLazyInjected`` is used).
@propertyWrapper
public struct LazyInjected<Service> {
    private let box: LazyBox<Service>

    /// Prepares the property; nothing is resolved until the first access.
    ///
    /// - Parameters:
    ///   - name: The registration name.
    ///   - container: The container to resolve from; ``Container/shared`` (at first access) when `nil`.
    ///   - file: Where the property is declared, for the message if it cannot be resolved.
    ///   - line: Where the property is declared, for the message if it cannot be resolved.
    public init(
        name: String? = nil,
        container: Container? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        let site = InjectionSite(wrapper: "LazyInjected", name: name, given: container != nil, file: file, line: line)
        box = LazyBox(site: site, container: container)
    }

    /// The instance: resolved on first access, the same one afterwards until ``release()``.
    /// Setting it replaces the instance (until ``release()``).
    public var wrappedValue: Service {
        get {
            do {
                return try get()
            } catch {
                box.site.stop(resolving: Service.self, error: error)
            }
        }
        nonmutating set {
            // The replaced instance is released outside the lock: its deinit may access this property.
            let replaced = box.kept.replace(with: newValue)
            _ = replaced
        }
    }

    /// The wrapper itself, for `$property.release()`, `$property.isEmpty` and `try $property.get()`.
    public var projectedValue: LazyInjected<Service> { self }

    /// Whether the property holds no instance: not accessed yet, or released since. Reading it resolves
    /// nothing.
    ///
    /// ```swift
    /// if viewModel.$api.isEmpty { print("API not made yet") }
    /// ```
    public var isEmpty: Bool { box.kept.keepsNothing() }

    /// The instance, resolved on first call; throws the ``ResolutionError`` if it cannot be resolved.
    public func get() throws -> Service {
        try box.kept.value(
            for: box.key(of: Service.self),
            read: { $0 },
            make: {
                let instance = try GraphRecorder.resolvingProperty {
                    try box.container.require(Service.self, name: box.site.name)
                }
                return (instance, instance)
            }
        )
    }

    /// Drops the instance, so that the next access resolves the service again.
    ///
    /// Use it to break a reference cycle a lazily injected parent makes.
    public func release() {
        // Dropped outside the lock: its deinit may access this property again.
        let dropped = box.kept.replace(with: nil)
        _ = dropped
    }
}

extension LazyInjected: Sendable where Service: Sendable {}

/// A property that keeps a weak reference to a class instance resolved on first access.
///
/// ```swift
/// final class ClassC {
///     @WeakLazyInjected var p: ClassP?
/// }
/// ```
///
/// The value is `nil` once nothing else keeps the instance: it is resolved once, on first access, not
/// again when it is gone (``release()`` allows a new resolution). Use it for a back-reference to a shared
/// parent without a reference cycle. The service must be a class (or a class-bound protocol); resolving a
/// value type stops the program. Container choice, concurrent first access and failures work as in
/// ``LazyInjected``; `try $p.get()` throws the error instead of stopping.
@propertyWrapper
public struct WeakLazyInjected<Service> {
    private let box: LazyBox<WeakReference<AnyObject>>

    /// Prepares the property; nothing is resolved until the first access.
    ///
    /// - Parameters:
    ///   - name: The registration name.
    ///   - container: The container to resolve from; ``Container/shared`` (at first access) when `nil`.
    ///   - file: Where the property is declared, for the message if it cannot be resolved.
    ///   - line: Where the property is declared, for the message if it cannot be resolved.
    public init(
        name: String? = nil,
        container: Container? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        let site = InjectionSite(
            wrapper: "WeakLazyInjected", name: name, given: container != nil, file: file, line: line)
        box = LazyBox(site: site, container: container)
    }

    /// The instance, resolved on first access; `nil` once nothing else keeps it.
    /// Setting it replaces the weakly kept instance (setting `nil` keeps nothing, without resolving).
    public var wrappedValue: Service? {
        get {
            do {
                return try get()
            } catch {
                box.site.stop(resolving: Service.self, error: error)
            }
        }
        nonmutating set {
            _ = box.kept.replace(with: WeakReference(newValue.map(Self.object(of:))))
        }
    }

    /// The wrapper itself, for `$property.release()`, `$property.isEmpty` and `try $property.get()`.
    public var projectedValue: WeakLazyInjected<Service> { self }

    /// Whether the property refers to no instance: not accessed yet, released, or the instance is gone
    /// because nothing else kept it. Reading it resolves nothing.
    ///
    /// ```swift
    /// if child.$parent.isEmpty { print("the parent is gone") }
    /// ```
    public var isEmpty: Bool { box.kept.keepsNothing { $0.object == nil } }

    /// The instance, resolved on first call, or `nil` once nothing else keeps it; throws the
    /// ``ResolutionError`` if it cannot be resolved.
    public func get() throws -> Service? {
        // Once resolved, the answer is what the weak reference still holds, nil included.
        let read: (WeakReference<AnyObject>) -> Service?? = { .some($0.object as? Service) }
        return try box.kept.value(
            for: box.key(of: Service.self),
            read: read,
            make: {
                let instance = try GraphRecorder.resolvingProperty {
                    try box.container.require(Service.self, name: box.site.name)
                }
                return (WeakReference(Self.object(of: instance)), instance)
            }
        )
    }

    /// Forgets the instance, so that the next access resolves the service again.
    public func release() {
        _ = box.kept.replace(with: nil)
    }

    /// The instance as an object; stops the program if it is a value, which a weak reference cannot hold.
    private static func object(of instance: Service) -> AnyObject {
        guard type(of: instance as Any) is AnyClass else {
            preconditionFailure(InjectionMessages.weakNeedsClass(Service.self, resolvedTo: type(of: instance as Any)))
        }
        return instance as AnyObject
    }
}

extension WeakLazyInjected: Sendable where Service: Sendable {}

/// A weak reference, kept by ``WeakLazyInjected`` once it has resolved its instance.
/// The state a lazy wrapper shares between its copies: what it keeps, made once while other threads wait.
private final class LazyBox<Kept>: @unchecked Sendable {
    let site: InjectionSite
    private let given: Container?
    /// The instance (``LazyInjected``) or a ``WeakReference`` to it (``WeakLazyInjected``); nil until resolved.
    /// A thread reading the property while it resolves it (a factory reads it) resolves again, and gets the
    /// cycle error.
    let kept = ExclusiveBuild<Kept>()

    init(site: InjectionSite, container: Container?) {
        self.site = site
        self.given = container
    }

    /// The container to resolve from now: the given one, or the current ``Container/shared``.
    var container: Container { given ?? Container.shared }

    /// The key the property resolves, for the error of a wait that would close a cycle across threads.
    func key(of serviceType: Any.Type) -> ServiceKey {
        ServiceKey(serviceType: serviceType, argumentsType: noArguments, name: site.name)
    }
}
