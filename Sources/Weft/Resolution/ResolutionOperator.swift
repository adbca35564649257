/// The resolution operator of SwinjectAutoregistration: `r~>` and `r ~> Service.self` resolve a service
/// where a value is needed, most often inside a factory.
///
/// ```swift
/// container.register(Car.self) { r in Car(engine: r~>, radio: r ~> (Radio.self, name: "fm")) }
/// let car = container ~> Car.self
/// ```
///
/// The operator does not throw and does not return an optional, so it cannot report a failure to its
/// caller: when the service cannot be made it reports the ``ResolutionError`` through
/// ``Container/loggingFunction``, as a failed `resolve` does, then stops the program with the same text
/// (what went wrong, the resolution path, what is registered instead). SwinjectAutoregistration stops it
/// too. Where the failure should be handled, use `require`, which throws that error.
postfix operator ~>

/// Resolves the service of the type the result is used as, or stops the program with the
/// ``ResolutionError`` that says why it cannot be made.
///
/// ```swift
/// container.register(Car.self) { r in Car(engine: r~>, wheels: r~>) }
/// let engine: Engine = container~>
/// ```
public postfix func ~> <Service>(resolver: any Resolver) -> Service {
    resolveOrStop(Service.self) { try resolver.require(Service.self) }
}

/// Resolves `serviceType`, or stops the program with the ``ResolutionError`` that says why it cannot be made.
///
/// ```swift
/// let engine = container ~> Engine.self
/// let backup = container ~> Engine?.self   // nil when no Engine is registered
/// ```
public func ~> <Service>(resolver: any Resolver, serviceType: Service.Type) -> Service {
    resolveOrStop(Service.self) { try resolver.require(serviceType) }
}

/// Resolves the service registered under a name, or stops the program with the ``ResolutionError`` that
/// says why it cannot be made.
///
/// ```swift
/// let engine = container ~> (Engine.self, name: "v8")
/// ```
public func ~> <Service>(resolver: any Resolver, request: (service: Service.Type, name: String)) -> Service {
    resolveOrStop(Service.self) { try resolver.require(request.service, name: request.name) }
}

/// Resolves the service registered with one runtime argument, or stops the program with the
/// ``ResolutionError`` that says why it cannot be made.
///
/// ```swift
/// let greeter = container ~> (Greeter.self, argument: "Ada")
/// ```
public func ~> <Service, Argument>(
    resolver: any Resolver,
    request: (service: Service.Type, argument: Argument)
) -> Service {
    resolveOrStop(Service.self) { try resolver.require(request.service, argument: request.argument) }
}

/// Resolves the service registered under a name with one runtime argument, or stops the program with the
/// ``ResolutionError`` that says why it cannot be made.
///
/// ```swift
/// let greeter = container ~> (Greeter.self, name: "formal", argument: "Ada")
/// ```
public func ~> <Service, Argument>(
    resolver: any Resolver,
    request: (service: Service.Type, name: String, argument: Argument)
) -> Service {
    resolveOrStop(Service.self) {
        try resolver.require(request.service, name: request.name, argument: request.argument)
    }
}

/// Resolves the service registered with runtime arguments, given as a tuple (any number of them), or stops
/// the program with the ``ResolutionError`` that says why it cannot be made.
///
/// ```swift
/// let route = container ~> (Route.self, arguments: ("/users", 42))
/// ```
public func ~> <Service, each Argument>(
    resolver: any Resolver,
    request: (service: Service.Type, arguments: (repeat each Argument))
) -> Service {
    resolveOrStop(Service.self) {
        try resolver.require(request.service, name: nil, arguments: repeat each request.arguments)
    }
}

/// Resolves the service registered under a name with runtime arguments, given as a tuple (any number of
/// them), or stops the program with the ``ResolutionError`` that says why it cannot be made.
///
/// ```swift
/// let route = container ~> (Route.self, name: "admin", arguments: ("/users", 42))
/// ```
public func ~> <Service, each Argument>(
    resolver: any Resolver,
    request: (service: Service.Type, name: String, arguments: (repeat each Argument))
) -> Service {
    resolveOrStop(Service.self) {
        try resolver.require(request.service, name: request.name, arguments: repeat each request.arguments)
    }
}

/// Resolves the service registered with three runtime arguments written after the label, not as a tuple:
/// a spelling SwinjectAutoregistration deprecated. Stops the program when the service cannot be made.
///
/// ```swift
/// let cell = container ~> (Cell.self, arguments: 1, 2, "title")   // prefer arguments: (1, 2, "title")
/// ```
@available(*, deprecated, message: "Pass the arguments as a tuple: ~> (Service.self, arguments: (a, b, c))")
public func ~> <Service, First, Second, Third>(
    resolver: any Resolver,
    request: (service: Service.Type, arguments: First, Second, Third)
) -> Service {
    resolveOrStop(Service.self) { try resolver.require(request.0, arguments: request.1, request.2, request.3) }
}

/// Resolves the service registered under a name with two runtime arguments written after the label, not as
/// a tuple: a spelling SwinjectAutoregistration deprecated. Stops the program when the service cannot be made.
///
/// ```swift
/// let cell = container ~> (Cell.self, name: "wide", arguments: 1, 2)   // prefer arguments: (1, 2)
/// ```
@available(*, deprecated, message: "Pass the arguments as a tuple: ~> (Service.self, name: n, arguments: (a, b))")
public func ~> <Service, First, Second>(
    resolver: any Resolver,
    request: (service: Service.Type, name: String, arguments: First, Second)
) -> Service {
    resolveOrStop(Service.self) { try resolver.require(request.0, name: request.1, arguments: request.2, request.3) }
}

/// Resolves the service registered under a name with three runtime arguments written after the label, not
/// as a tuple: a spelling SwinjectAutoregistration deprecated. Stops the program when the service cannot be
/// made.
///
/// ```swift
/// let cell = container ~> (Cell.self, name: "wide", arguments: 1, 2, "title")
/// ```
@available(*, deprecated, message: "Pass the arguments as a tuple: ~> (Service.self, name: n, arguments: (a, b, c))")
public func ~> <Service, First, Second, Third>(
    resolver: any Resolver,
    request: (service: Service.Type, name: String, arguments: First, Second, Third)
) -> Service {
    resolveOrStop(Service.self) {
        try resolver.require(request.0, name: request.1, arguments: request.2, request.3, request.4)
    }
}

/// Runs `require`; on failure reports the error through the logging hook, as a failed `resolve` does, and
/// stops the program with its text.
private func resolveOrStop<Service>(_ serviceType: Service.Type, _ require: () throws -> Service) -> Service {
    do {
        return try require()
    } catch let error as ResolutionError {
        Container.log(.resolutionFailed(error))
        fatalError("~> could not resolve \(Service.self).\n\(error)")
    } catch {
        Container.log(.resolutionFailed(error, resolving: serviceType))
        fatalError("~> could not resolve \(Service.self): \(error)")
    }
}
