/// A property whose value is resolved when the enclosing object is made.
///
/// ```swift
/// final class Alarm {
///     @Injected var clock: Clock
///     @Injected(name: "loud") var speaker: Speaker
/// }
/// ```
///
/// The value is resolved from `container` if one is given, otherwise from ``Container/shared`` as it is
/// at that moment (a test's own container inside ``Container/withShared(_:operation:)``). When a factory
/// makes the enclosing object, the property joins that factory's object graph, so graph-scoped services
/// are shared with it.
///
/// If the service cannot be resolved, the program stops with a message that contains the
/// ``ResolutionError`` and the file and line where the property was declared. Use ``OptionalInjected``
/// for a dependency that may be missing, or ``LazyInjected`` with its throwing `get()` to handle the
/// error.
@propertyWrapper
public struct Injected<Service> {
    /// The resolved instance; it can be replaced, for instance in a test.
    public var wrappedValue: Service

    /// Resolves the service now, from `container` or else from ``Container/shared``.
    ///
    /// - Parameters:
    ///   - name: The registration name.
    ///   - container: The container to resolve from; ``Container/shared`` when `nil`.
    ///   - file: Where the property is declared, for the message if it cannot be resolved.
    ///   - line: Where the property is declared, for the message if it cannot be resolved.
    public init(
        name: String? = nil,
        container: Container? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        let source = container ?? Container.shared
        do {
            wrappedValue = try GraphRecorder.resolvingProperty { try source.require(Service.self, name: name) }
        } catch {
            let site = InjectionSite(wrapper: "Injected", name: name, given: container != nil, file: file, line: line)
            site.stop(resolving: Service.self, error: error)
        }
    }
}

extension Injected: Sendable where Service: Sendable {}

/// A property whose value is resolved when the enclosing object is made, or `nil` when the service
/// cannot be resolved.
///
/// ```swift
/// final class Player {
///     @OptionalInjected var analytics: Analytics?
/// }
/// ```
///
/// Like `resolve`, a failure does not stop the program: the value is `nil`, and the reason is reported
/// through ``Container/loggingFunction``. The value is resolved from `container` if one is given,
/// otherwise from ``Container/shared``.
@propertyWrapper
public struct OptionalInjected<Service> {
    /// The resolved instance, or `nil`; it can be replaced.
    public var wrappedValue: Service?

    /// Resolves the service now, from `container` or else from ``Container/shared``.
    ///
    /// - Parameters:
    ///   - name: The registration name.
    ///   - container: The container to resolve from; ``Container/shared`` when `nil`.
    public init(name: String? = nil, container: Container? = nil) {
        let source = container ?? Container.shared
        wrappedValue = GraphRecorder.resolvingProperty { source.resolve(Service.self, name: name) }
    }
}

extension OptionalInjected: Sendable where Service: Sendable {}

/// Where and how a property wrapper was declared, to say so when its service cannot be resolved.
struct InjectionSite: Sendable {
    /// The wrapper's name without the `@`, e.g. `LazyInjected`.
    let wrapper: String
    /// The registration name the wrapper asks for.
    let name: String?
    /// Whether the wrapper was given a container (rather than using `Container.shared`).
    let given: Bool
    let file: StaticString
    let line: UInt

    /// Stops the program with ``failureMessage(for:error:)`` (worded in `Diagnostics/InjectionMessages.swift`),
    /// reported at the declaration.
    func stop(resolving serviceType: Any.Type, error: any Error) -> Never {
        fatalError(failureMessage(for: serviceType, error: error), file: file, line: line)
    }
}
