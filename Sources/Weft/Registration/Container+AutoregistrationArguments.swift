/// Autoregistration with runtime arguments, spelled and matched as in SwinjectAutoregistration: each argument
/// goes to the initializer's parameters of its type, wherever they appear, and the other parameters are
/// resolved from the container.
///
/// ```swift
/// final class UserViewModel {
///     init(api: API, userID: String, cache: Cache) { ... }
/// }
///
/// container.autoregister(UserViewModel.self, argument: String.self, initializer: UserViewModel.init)
/// let model = try container.require(UserViewModel.self, argument: "42")   // api and cache resolved
/// ```
///
/// The rule: a parameter receives an argument whose value can be cast to the
/// parameter's type: the same type, its optional, a superclass or a protocol it conforms to. If several
/// arguments fit one type, the parameters of that type take them in order. The registration is keyed by the
/// argument types, so it is resolved as any registration with arguments is: `resolve(_:argument:)`,
/// `require(_:arguments:)`, or `r ~> (Service.self, argument: a)`.
///
/// A dependency that cannot be resolved fails the resolution with a ``ResolutionError`` naming the path
/// (SwinjectAutoregistration stops the program instead). ``Container/verify(strict:)`` knows the resolved
/// parameters without building the service; the arguments are not among its dependencies.
extension Container {
    /// Registers `serviceType`, made by `initializer` from one runtime argument, passed to the parameters of
    /// its type wherever they appear, and dependencies resolved by their types.
    ///
    /// ```swift
    /// final class Greeter {
    ///     init(logger: Logger, name: String) { ... }
    /// }
    ///
    /// container.autoregister(Greeter.self, argument: String.self, initializer: Greeter.init)
    /// let greeter = try container.require(Greeter.self, argument: "Ada")
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: Tells apart registrations of the same type and argument types.
    ///   - argument: The type of the runtime argument.
    ///   - initializer: Makes the instance; the parameters the argument does not fit are resolved. It may throw.
    /// - Returns: The registration, to set its scope, `initCompleted` callbacks and forwarded types.
    @discardableResult
    public func autoregister<Service, Argument, each Parameter>(
        _ serviceType: Service.Type,
        name: String? = nil,
        argument: Argument.Type,
        initializer: @escaping (repeat each Parameter) throws -> Service
    ) -> ServiceEntry<Service> {
        let match = ArgumentMatch(parameters: repeat (each Parameter).self, argumentTypes: [Argument.self])
        return autoregister(serviceType, name: name, dependencies: match.dependencies) {
            (resolver: any Resolver, argument: Argument) in
            var position = 0
            return try initializer(
                repeat match.value((each Parameter).self, position: &position, resolver: resolver, first: argument)
            )
        }
    }

    /// Registers `serviceType`, made by `initializer` from runtime arguments (any number), each passed to
    /// the parameters of its type wherever they appear, and dependencies resolved by their types.
    ///
    /// ```swift
    /// final class Route {
    ///     init(router: Router, path: String, id: Int) { ... }
    /// }
    ///
    /// container.autoregister(Route.self, arguments: String.self, Int.self, initializer: Route.init)
    /// let route = try container.require(Route.self, arguments: "/users", 42)
    /// ```
    ///
    /// The argument types are the registration's key in the order given here, which need not be the order of
    /// the parameters. If several arguments have the same type, the parameters of that type take them in order.
    ///
    /// - Parameters:
    ///   - serviceType: The type to register.
    ///   - name: Tells apart registrations of the same type and argument types.
    ///   - first: The type of the first runtime argument.
    ///   - others: The types of the other runtime arguments, in the order `resolve` passes them.
    ///   - initializer: Makes the instance; the parameters no argument fits are resolved. It may throw.
    /// - Returns: The registration.
    @discardableResult
    public func autoregister<Service, First, each Other, each Parameter>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments first: First.Type,
        _ others: repeat (each Other).Type,
        initializer: @escaping (repeat each Parameter) throws -> Service
    ) -> ServiceEntry<Service> {
        var argumentTypes: [Any.Type] = [First.self]
        for other in repeat each others {
            argumentTypes.append(other)
        }
        let match = ArgumentMatch(parameters: repeat (each Parameter).self, argumentTypes: argumentTypes)
        return autoregister(serviceType, name: name, dependencies: match.dependencies) {
            (resolver: any Resolver, first: First, other: repeat each Other) in
            var position = 0
            return try initializer(
                repeat match.value(
                    (each Parameter).self, position: &position, resolver: resolver, first: first,
                    others: repeat each other)
            )
        }
    }
}
