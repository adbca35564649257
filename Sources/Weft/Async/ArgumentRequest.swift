/// An async request for a service with runtime arguments: its key, the arguments boxed as an `async` factory takes
/// them, and how a synchronous factory makes it with them. Made in synchronous code and handed to async code whole:
/// an async function that passes a pack it joined from a value and another pack (`first, repeat each others`) to an
/// async function stops the program when the callee suspends ("freed pointer was not the last allocation": the
/// task's allocator is freed out of order), a Swift compiler bug seen with Swift 6.3.
struct ArgumentRequest: Sendable {
    let key: ServiceKey
    let arguments: any Sendable
    /// Makes the service in the synchronous engine (`false`), or returns the arguments as an array of `Any`
    /// (`true`, see ``values``): one closure for both, so that a request allocates one context.
    private let spread: @Sendable (_ valuesOnly: Bool) throws -> Any

    init<Service, each Argument>(
        _: Service.Type,
        name: String?,
        container: Container,
        arguments: repeat each Argument
    ) {
        key = ServiceKey(
            serviceType: Service.self, argumentsType: (any Resolver, repeat each Argument).self, name: name)
        let box = PackBox(values: (repeat each arguments))
        self.arguments = box
        spread = { valuesOnly in
            guard valuesOnly else {
                return try container.make(Service.self, name: name, option: nil, arguments: repeat each box.values)
            }
            var values: [Any] = []
            for value in repeat each box.values { values.append(value) }
            return values
        }
    }

    /// A request for `key` with `arguments` (a ``PackBox`` of the types `key` names), made in the synchronous engine
    /// by `synchronously`.
    init(key: ServiceKey, arguments: any Sendable, synchronously: @escaping @Sendable () throws -> Any) {
        self.key = key
        self.arguments = arguments
        spread = { valuesOnly in valuesOnly ? [Any]() : try synchronously() }
    }

    /// Makes the service in the synchronous engine.
    func synchronously() throws -> Any {
        try spread(false)
    }

    /// The arguments, in order.
    var values: [Any] {
        (try? spread(true)) as? [Any] ?? []
    }
}

/// Runtime arguments, handed to the engine and on to the factory that takes them: `Values` is the tuple of their
/// types, `(repeat each Argument)` where they are a parameter pack (the one type for one argument).
///
/// Generic over that tuple rather than over the pack itself: a generic type with a parameter pack needs the Swift 5.9
/// runtime (macOS 14, iOS 17, tvOS 17, watchOS 10), which Weft's deployment floors predate; a tuple type made from
/// a pack needs no newer runtime.
struct PackBox<Values>: @unchecked Sendable {
    let values: Values
}
