/// Why a resolution failed, with the path of services that led there.
///
/// Thrown by `require`; the optional `resolve` returns `nil` instead and reports the same text
/// through ``Container/loggingFunction``. Every description starts with a stable identifier such as
/// `[Weft.missingRegistration]`, so logs can be searched and tests can match it.
///
/// ```swift
/// do {
///     let garage = try container.require(Garage.self)
/// } catch {
///     print(error)
///     // [Weft.missingRegistration] No registration for Engine named "v8".
///     // Resolution path: Garage -> Car -> Engine["v8"]
///     // Registered instead: Engine named "v6"
/// }
/// ```
public struct ResolutionError: Error, @unchecked Sendable {
    /// What went wrong.
    public enum Reason: String, Sendable, CaseIterable {
        /// Nothing is registered for the requested type, name and argument types.
        case missingRegistration
        /// The factories of the services on the path ask for each other, so none can be made first.
        case circularDependency
        /// A factory threw, or a decorator wrapping what it made (``ResolutionError/thrownByDecorator`` tells which);
        /// see ``ResolutionError/underlyingError``.
        case factoryFailed
        /// An `initCompleted` callback threw; see ``ResolutionError/underlyingError``.
        case initCompletedFailed
        /// The registration made an instance that is not of the requested type.
        case typeMismatch
        /// The registration's factory is `@MainActor`, and the service was resolved off the main actor.
        case notOnMainActor
        /// The registration's factory is `async`, and a synchronous resolve needed a new instance of it.
        case requiresAsync
        /// The registration is `.scoped` and was resolved outside any scope (see ``Container/makeScope()``).
        case outsideScope
        /// The registration is `.scoped` and was resolved in a scope that has ended.
        case scopeEnded
        /// An instance that outlives scopes (a `.container` singleton) was being made with a `.scoped` one,
        /// which it would keep after its scope ends.
        case captiveDependency
        /// The path grew so deep that the thread's stack was nearly used up: going on would have crashed.
        case tooDeep
    }

    /// What went wrong.
    public let reason: Reason
    /// The requested service type, as written in Swift (`Engine`).
    public let serviceType: String
    /// The requested registration name.
    public let name: String?
    /// The requested argument types, without the resolver (`["Int", "String"]`).
    public let argumentTypes: [String]
    /// The services being resolved, outermost first, ending with the one that failed.
    public internal(set) var path: [String]
    /// Registrations that exist and might have been meant (other names, arguments, containers).
    public let suggestions: [String]
    /// The error a factory, a decorator or an `initCompleted` callback threw.
    public let underlyingError: (any Error)?

    /// For ``Reason/factoryFailed``: whether a decorator of the service threw (see
    /// ``Container/decorate(_:name:decorator:)-(_,_,(Resolver,Service)->Service)``), after its factory had returned,
    /// rather than the factory itself. ``underlyingError`` is then what the decorator threw.
    public let thrownByDecorator: Bool

    /// The stable identifier of ``reason``, e.g. `Weft.missingRegistration`.
    public var identifier: String { "Weft.\(reason.rawValue)" }

    init(
        reason: Reason,
        key: ServiceKey,
        path: [String],
        suggestions: [String] = [],
        underlyingError: (any Error)? = nil,
        cycleThroughCallbacks: Bool = false,
        acrossThreads: Bool = false,
        asyncInFlight: Bool = false,
        closingWrapper: String? = nil,
        madeType: String? = nil,
        stackUse: (used: Int, size: Int)? = nil,
        captor: String? = nil,
        thrownByDecorator: Bool = false,
        requestedAs: String? = nil,
        belowScope: Bool = false,
        selfAskingScope: String? = nil,
        takingArguments: [String] = []
    ) {
        self.selfAskingScope = selfAskingScope
        self.takingArguments = takingArguments
        self.requestedAs = requestedAs
        self.belowScope = belowScope
        self.thrownByDecorator = thrownByDecorator
        self.stackUse = stackUse
        self.captor = captor
        self.cycleThroughCallbacks = cycleThroughCallbacks
        self.acrossThreads = acrossThreads
        self.asyncInFlight = asyncInFlight
        self.closingWrapper = closingWrapper
        self.madeType = madeType
        self.reason = reason
        self.serviceType = String(describing: key.serviceType)
        self.name = key.name
        self.argumentTypes = key.argumentTypeNames
        self.path = path
        self.suggestions = suggestions
        self.underlyingError = underlyingError
        self.request = key.requestDescription
        self.key = key
    }

    let request: String
    /// Whether the cycle runs through `initCompleted` callbacks of unshared instances.
    let cycleThroughCallbacks: Bool
    /// Whether the cycle was found between threads that each wait for what another one makes.
    let acrossThreads: Bool
    /// For `.requiresAsync`: an async resolve has made the instance and is still running its callbacks.
    let asyncInFlight: Bool
    /// When the step that closes the cycle asked through a `Lazy` or `Provider` (and read it inside its
    /// factory): that wrapper, e.g. `Lazy<Engine>`.
    let closingWrapper: String?
    /// For a type mismatch: the type of the instance the registration made.
    let madeType: String?
    /// For a path too deep: the bytes of the thread's stack in use when the resolve stopped, and its size.
    let stackUse: (used: Int, size: Int)?
    /// For a captive dependency: the step of the path whose shared instance was being made (`.graph` and
    /// `.transient` services may stand between it and the scoped service).
    let captor: String?
    /// For a missing registration asked for through a `Lazy`, `Provider` or property wrapper: that request,
    /// e.g. `Provider<Cat>`, while ``serviceType`` is the wrapped type that is missing.
    let requestedAs: String?
    /// For `.outsideScope`: a scope is above the container resolved from, but the registration is in a container
    /// below that scope (a child made with `Container(parent:)`), so no scope keeps its instances.
    let belowScope: Bool
    /// For a cycle that a registration with runtime arguments closes by asking for itself: the scope that makes it a
    /// cycle (`graph`, `container`, ...), where a transient registration would recurse instead.
    let selfAskingScope: String?
    /// For a missing registration asked for with runtime arguments: the registrations of the same service whose
    /// declared argument types all take the arguments given, when there are several (one would have been used; see
    /// `OpenedArguments.swift`).
    let takingArguments: [String]
    /// The key that failed, for the debug helper.
    let key: ServiceKey?
}

extension ResolutionError {
    /// The ``Reason/factoryFailed`` error for what the factory of `key` threw, `error` (not a ``ResolutionError``,
    /// which goes up unchanged): a decorator's failure, which comes out of the factory closure it is folded into
    /// as a ``DecoratorFailure``, is told apart and unwrapped, so the caller sees its own error as the underlying one.
    static func factoryFailed(_ error: any Error, key: ServiceKey, path: [String]) -> ResolutionError {
        guard let failure = error as? DecoratorFailure else {
            return ResolutionError(reason: .factoryFailed, key: key, path: path, underlyingError: error)
        }
        return ResolutionError(
            reason: .factoryFailed, key: key, path: path, underlyingError: failure.error, thrownByDecorator: true)
    }

    /// An error thrown from inside a factory the engine is running, about that factory's registration: the
    /// innermost frame of this thread's resolution gives the key and the path (`serviceType` names it when
    /// no resolution is running).
    static func fromInsideFactory(_ reason: Reason, serviceType: Any.Type) -> ResolutionError {
        let state = ResolutionState.current
        let frames = state.fields.pointee.frames
        let key =
            frames.last.map { frames.key(of: $0) }
            ?? ServiceKey(serviceType: serviceType, argumentsType: noArguments, name: nil)
        return ResolutionError(reason: reason, key: key, path: state.path)
    }
}
