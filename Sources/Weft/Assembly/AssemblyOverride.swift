/// A set of assemblies with some of their registrations replaced by those of override assemblies: for tests,
/// previews and app variants that swap a few services and keep the rest.
///
/// ```swift
/// struct FakeNetworkAssembly: Assembly {
///     func assemble(container: Container) {
///         container.register(HTTPClient.self) { _ in FakeClient() }.inObjectScope(.container)
///     }
/// }
///
/// let assembler = Assembler([AssemblyOverride([AppAssembly(), NetworkAssembly()], with: [FakeNetworkAssembly()])])
/// // or: Assembler([AppAssembly(), NetworkAssembly()], overriddenBy: [FakeNetworkAssembly()])
/// ```
///
/// Every registration of the overrides replaces the one of the same type, name and argument types that the
/// assemblies made; everything else the assemblies register stays. The assemblies are assembled first, then
/// the overrides, and only then does any `loaded(resolver:)` run (the assemblies' first, then the
/// overrides'), so a service that depends on a replaced one, even one resolved eagerly in `loaded`, is built
/// with the override. An override that registers something the assemblies do not adds it.
///
/// Replacing a registration keeps nothing made with the one it replaces (see <doc:ObjectScopes>). An
/// assembly that resolves services inside `assemble(container:)`, before the overrides are registered,
/// builds them with its own registrations: resolve eager services in `loaded(resolver:)` instead.
///
/// An override is itself an ``Assembly``, so overrides nest: the innermost are replaced first.
public struct AssemblyOverride: Assembly {
    /// The assemblies whose registrations may be replaced.
    public let assemblies: [any Assembly]
    /// The assemblies whose registrations replace theirs.
    public let overrides: [any Assembly]

    /// Makes the override of `assemblies` by `overrides`.
    ///
    /// - Parameters:
    ///   - assemblies: The assemblies to apply, in order.
    ///   - overrides: Applied after them; each of their registrations replaces the assemblies' one of the same
    ///     type, name and argument types.
    public init(_ assemblies: [any Assembly], with overrides: [any Assembly]) {
        self.assemblies = assemblies
        self.overrides = overrides
    }

    /// Registers the assemblies' services, then the overrides' over them.
    public func assemble(container: Container) {
        for assembly in assemblies { assembly.assemble(container: container) }
        for assembly in overrides { assembly.assemble(container: container) }
    }

    /// Calls the assemblies' `loaded(resolver:)`, then the overrides'.
    public func loaded(resolver: any Resolver) {
        for assembly in assemblies { assembly.loaded(resolver: resolver) }
        for assembly in overrides { assembly.loaded(resolver: resolver) }
    }
}

extension Assembler {
    /// Makes an assembler and applies `assemblies` to `container`, with the registrations of `overrides`
    /// replacing theirs (see ``AssemblyOverride``).
    ///
    /// ```swift
    /// let assembler = Assembler([AppAssembly()], overriddenBy: [FakeNetworkAssembly()])
    /// ```
    ///
    /// - Parameters:
    ///   - assemblies: The assemblies to apply.
    ///   - overrides: Their registrations replace the assemblies' ones of the same key, before any
    ///     `loaded(resolver:)` runs.
    ///   - container: The container to assemble into; a new one by default.
    public convenience init(
        _ assemblies: [any Assembly],
        overriddenBy overrides: [any Assembly],
        container: Container = Container()
    ) {
        self.init([AssemblyOverride(assemblies, with: overrides)], container: container)
    }
}
