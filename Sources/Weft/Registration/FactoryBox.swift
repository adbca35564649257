/// The factory of a registration that takes runtime arguments, erased to return `Any` so that forwarded types can
/// share it: `Arguments` is the tuple of the arguments' types, `(repeat each Argument)` where the registration
/// declared them as a parameter pack (the one type for one argument).
///
/// Generic over that tuple rather than over the pack itself: a generic type with a parameter pack needs the Swift 5.9
/// runtime (macOS 14, iOS 17, tvOS 17, watchOS 10), which Weft's deployment floors predate, while a tuple type made
/// from a pack, and a generic function over a pack, need no newer runtime. What needs the arguments spread out again
/// as a pack (a forwarded request, which builds its key from their types) goes through ``spreader``, made where the
/// pack was known.
final class FactoryBox<Arguments>: ArgumentFactory, @unchecked Sendable {
    let make: (any Resolver, Arguments) throws -> Any
    let spreader: ArgumentSpreader<Arguments>

    init(make: @escaping (any Resolver, Arguments) throws -> Any, spreader: ArgumentSpreader<Arguments>) {
        self.make = make
        self.spreader = spreader
        super.init(argumentsType: spreader.argumentsType) { resolver, arguments in
            try make(resolver, arguments.assumingMemoryBound(to: Arguments.self).pointee)
        }
    }

    // Arguments Swift passed as their concrete types: see `OpenedArguments.swift`.

    override func casting(_ values: [Any]) -> Any? {
        spreader.cast(values)
    }

    override func make(_ request: any ForwardedRequest, in container: Container, arguments: Any) throws -> Any {
        guard let arguments = arguments as? Arguments else {
            return try super.make(request, in: container, arguments: arguments)
        }
        return try spreader.make(request, container, arguments)
    }

    override func asyncRequest(
        key: ServiceKey,
        _ request: any ForwardedRequest,
        in container: Container,
        arguments: Any
    ) -> ArgumentRequest? {
        guard let arguments = arguments as? Arguments else { return nil }
        let box = PackBox(values: arguments)
        let spread = spreader.make
        return ArgumentRequest(key: key, arguments: box) { try spread(request, container, box.values) }
    }
}

/// A factory that takes runtime arguments, as the engine calls it: without knowing its argument types as a generic
/// parameter. Casting the registration's factory to `FactoryBox<(repeat each Argument)>` at every resolve would look
/// up that class's generic metadata and cast an `Any` to it; the registration's key already says the types match.
class ArgumentFactory: @unchecked Sendable {
    /// The arguments type of the key this factory is resolved with (see ``ServiceKey``).
    let argumentsType: Any.Type
    /// Calls the factory with the arguments at `arguments`: a tuple of the types that ``argumentsType`` lists after
    /// the resolver (the one type for one argument).
    let makeAt: (any Resolver, UnsafeRawPointer) throws -> Any

    init(argumentsType: Any.Type, makeAt: @escaping (any Resolver, UnsafeRawPointer) throws -> Any) {
        self.argumentsType = argumentsType
        self.makeAt = makeAt
    }

    /// `values` as this factory's arguments, or nil when their number differs or one does not cast to its
    /// parameter's type (see `OpenedArguments.swift`).
    func casting(_ values: [Any]) -> Any? { nil }

    /// Makes `request` with `arguments` (from ``casting(_:)``) in `container`, in the synchronous engine.
    func make(_ request: any ForwardedRequest, in container: Container, arguments: Any) throws -> Any {
        throw ResolutionError.fromInsideFactory(.typeMismatch, serviceType: argumentsType)
    }

    /// The async request for `key` (the registration's) with `arguments` (from ``casting(_:)``), which the
    /// synchronous engine makes through `request`.
    func asyncRequest(key: ServiceKey, _ request: any ForwardedRequest, in container: Container, arguments: Any)
        -> ArgumentRequest?
    {
        nil
    }
}

/// The box of `make`, a factory taking the runtime arguments `(repeat each Argument)`.
func factoryBox<each Argument>(
    _ make: @escaping (any Resolver, repeat each Argument) throws -> Any
) -> FactoryBox<(repeat each Argument)> {
    FactoryBox(
        make: { resolver, arguments in try make(resolver, repeat each arguments) },
        spreader: argumentSpreader(repeat (each Argument).self)
    )
}

/// Hands a tuple of runtime arguments to a ``ForwardedRequest`` as the parameter pack it takes them as, and knows
/// the type a request key gives them: made by ``argumentSpreader(_:)``, where the pack is known.
struct ArgumentSpreader<Arguments>: Sendable {
    let make: @Sendable (any ForwardedRequest, Container, Arguments) throws -> Any
    /// The arguments type of a key that these arguments are resolved with (see ``ServiceKey``).
    let argumentsType: Any.Type
    /// Arguments given as `Any`s, cast to these types; nil when their number differs or one does not cast (see
    /// `OpenedArguments.swift`).
    let cast: @Sendable ([Any]) -> Arguments?
}

/// The spreader of the runtime arguments `(repeat each Argument)`.
func argumentSpreader<each Argument>(
    _: repeat (each Argument).Type
) -> ArgumentSpreader<(repeat each Argument)> {
    ArgumentSpreader(
        make: { request, container, arguments in try request.make(in: container, arguments: repeat each arguments) },
        argumentsType: (any Resolver, repeat each Argument).self,
        cast: { values in castArguments(values, as: repeat (each Argument).self) }
    )
}

/// `values` cast to the types `(repeat each Argument)`, in order; nil when their number differs or one does not cast.
private func castArguments<each Argument>(_ values: [Any], as _: repeat (each Argument).Type) -> (repeat each Argument)?
{
    var count = 0
    for _ in repeat (each Argument).self { count += 1 }
    guard values.count == count else { return nil }
    var position = 0
    func next<Value>(_: Value.Type) -> Value? {
        defer { position += 1 }
        return values[position] as? Value
    }
    let cast = (repeat next((each Argument).self))
    for value in repeat each cast {
        guard value != nil else { return nil }
    }
    return (repeat (each cast)!)
}

/// A request that a factory passes its runtime arguments on to: what a decorated forward makes (see
/// `Container+ForwardDecoration.swift`).
protocol ForwardedRequest: Sendable {
    /// Makes the requested service with `arguments` in `container`'s current graph.
    func make<each Argument>(in container: Container, arguments: repeat each Argument) throws -> Any
}

/// A request for `Type` under `name` and `option`.
struct ForwardRequest<Type>: ForwardedRequest {
    let name: String?
    let option: any ServiceKeyOption

    func make<each Argument>(in container: Container, arguments: repeat each Argument) throws -> Any {
        try container.make(Type.self, name: name, option: option, arguments: repeat each arguments)
    }
}

extension FactoryBox: DecoratableFactory {
    func decorated<Service>(by decorators: [Decorator<Service>]) -> Any {
        let inner = make
        return FactoryBox(
            make: { resolver, arguments in
                let made = try inner(resolver, arguments)
                guard var instance = made as? Service else { return made }
                for decorator in decorators {
                    instance = try decorator.decorate(resolver, instance)
                }
                return instance
            },
            spreader: spreader
        )
    }

    /// This factory as an async one, for a registration with runtime arguments whose factory is synchronous: it
    /// runs with the resolver's container, inside its graph, then `decorators` wrap what it made.
    func asyncDecorated<Service>(by decorators: [Decorator<Service>]) -> AsyncFactory {
        AsyncFactory { resolver, arguments in
            guard let arguments = arguments as? PackBox<Arguments> else { return nil }
            let made = try resolver.synchronously { try self.make($0, arguments.values) }
            guard let instance = made as? Service else { return Made(value: made) }
            return Made(value: try await Decorator.apply(decorators, to: instance, resolver: resolver))
        }
    }

    func forwarding<Type>(_ type: Type.Type, name: String?, option: any ServiceKeyOption) -> Any {
        let request = ForwardRequest<Type>(name: name, option: option)
        let spread = spreader.make
        return FactoryBox(
            make: { resolver, arguments in
                guard let container = resolver as? Container else {
                    throw ResolutionError.fromInsideFactory(.typeMismatch, serviceType: type)
                }
                return try spread(request, container, arguments)
            },
            spreader: spreader
        )
    }

    func asyncForwarding<Type>(_ type: Type.Type, name: String?, option: any ServiceKeyOption) -> AsyncFactory {
        let request = ForwardRequest<Type>(name: name, option: option)
        let spread = spreader.make
        let key = ServiceKey(serviceType: Type.self, argumentsType: spreader.argumentsType, name: name, option: option)
        return AsyncFactory { resolver, arguments in
            guard let arguments = arguments as? PackBox<Arguments> else { return nil }
            let container = resolver.container
            let made = try await resolver.require(Type.self, key: key, arguments: arguments) {
                try spread(request, container, arguments.values)
            }
            return Made(value: made)
        }
    }
}
