/// A group of related registrations, applied to a container by an ``Assembler``.
///
/// ```swift
/// struct NetworkAssembly: Assembly {
///     func assemble(container: Container) {
///         container.register(HTTPClient.self) { _ in URLSessionClient() }.inObjectScope(.container)
///     }
/// }
/// let assembler = Assembler([NetworkAssembly(), FeatureAssembly()])
/// let client = assembler.resolver.resolve(HTTPClient.self)
/// ```
public protocol Assembly {
    /// Registers this assembly's services into `container`.
    func assemble(container: Container)

    /// Called once every assembly passed with this one has been assembled; resolve eager services here.
    func loaded(resolver: any Resolver)
}

extension Assembly {
    /// Does nothing.
    public func loaded(resolver _: any Resolver) {}
}

/// An ``Assembly`` that wants to know when the assembler has loaded it.
///
/// Any assembly can implement ``Assembly/loaded(resolver:)``; this protocol names that intent.
public protocol LoadAwareAssembly: Assembly {}
