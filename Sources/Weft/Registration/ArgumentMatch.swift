/// How the parameters of an autoregistered initializer receive the runtime arguments: by type, wherever they
/// appear, as SwinjectAutoregistration passes them.
///
/// A parameter receives an argument when the argument's value can be cast to the parameter's type (the
/// same type, its optional, a superclass, a protocol it conforms to); the other parameters are resolved from
/// the container. So `init(api: API, id: String, cache: Cache)` registered with
/// `argument: String.self` takes the string as its second parameter and resolves the other two.
///
/// When several arguments fit one parameter type (SwinjectAutoregistration refuses arguments of the same
/// type; Weft takes them in order), the parameters of that type take them in order: the first parameter
/// the first fitting argument, the second the second, and any further parameter of that type the last one.
/// With arguments of distinct types this is SwinjectAutoregistration's rule: every parameter of an
/// argument's type receives that argument.
struct ArgumentMatch: Sendable {
    /// For each parameter, in order: how many earlier parameters have exactly its type.
    private let occurrences: [Int]
    /// The parameters no argument type fits, as verification sees them.
    let dependencies: [DeclaredDependency]

    /// The match of an initializer taking `parameters`, registered with runtime arguments of `argumentTypes`.
    init<each Parameter>(parameters: repeat (each Parameter).Type, argumentTypes: [Any.Type]) {
        var seen: [ObjectIdentifier: Int] = [:]
        var occurrences: [Int] = []
        var dependencies: [DeclaredDependency] = []
        for parameter in repeat each parameters {
            let type = ObjectIdentifier(parameter)
            occurrences.append(seen[type, default: 0])
            seen[type, default: 0] += 1
            if !argumentTypes.contains(where: { Self.fits($0, parameter) }) {
                dependencies.append(DeclaredDependency(parameter))
            }
        }
        self.occurrences = occurrences
        self.dependencies = dependencies
    }

    /// The value of the parameter at `position` (then moved to the next parameter): the argument it receives,
    /// or the service resolved from `resolver` when no argument fits. A missing service throws the
    /// ``ResolutionError`` of `require`.
    func value<Parameter, First, each Other>(
        _: Parameter.Type,
        position: inout Int,
        resolver: any Resolver,
        first: First,
        others: repeat each Other
    ) throws -> Parameter {
        let wanted = occurrences[position]
        position += 1
        var fitting = 0
        var last: Parameter?
        if let match = first as? Parameter {
            if wanted == 0 { return match }
            fitting = 1
            last = match
        }
        for other in repeat each others {
            if let match = other as? Parameter {
                if fitting == wanted { return match }
                fitting += 1
                last = match
            }
        }
        if let last { return last }
        return try resolver.require(Parameter.self)
    }

    /// Whether a runtime argument declared as `argument` fits a parameter of type `Parameter`, as far as the
    /// types alone tell: the same type, its optional, or a subclass. (An argument that conforms to a
    /// protocol parameter also fits when resolved; verification cannot tell that from the types, and counts
    /// such a parameter as a dependency.)
    static func fits<Parameter>(_ argument: Any.Type, _: Parameter.Type) -> Bool {
        if argument == Parameter.self || argument is Parameter.Type { return true }
        if let wrapper = Parameter.self as? any DeclaredWrapper.Type, wrapper.declaredAccess == .optional {
            return wrapper.wrappedType == argument
        }
        return false
    }
}
