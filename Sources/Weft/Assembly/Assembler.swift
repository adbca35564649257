/// Builds a container from ``Assembly`` values and exposes it as a ``Resolver``.
///
/// ```swift
/// let assembler = Assembler([ServiceAssembly(), ViewModelAssembly()])
/// let viewModel = assembler.resolver.resolve(ViewModel.self)
/// ```
public final class Assembler: @unchecked Sendable {
    private let container: Container

    /// The assembled container, as a resolver.
    public var resolver: any Resolver { container }

    /// Makes an assembler around `container` (a new container by default).
    public init(container: Container? = Container()) {
        self.container = container ?? Container()
    }

    /// Makes an empty assembler whose container is a child of `parentAssembler`'s.
    public init(parentAssembler: Assembler?, defaultObjectScope: ObjectScope = .graph, behaviors: [any Behavior] = []) {
        container = Container(
            parent: parentAssembler?.container,
            defaultObjectScope: defaultObjectScope,
            behaviors: behaviors
        )
    }

    /// Makes an assembler and applies `assemblies` to `container`.
    public init(_ assemblies: [any Assembly], container: Container = Container()) {
        self.container = container
        run(assemblies)
    }

    /// Makes an assembler whose container is a child of `parent`'s, and applies `assemblies` to it.
    public init(
        _ assemblies: [any Assembly],
        parent: Assembler?,
        defaultObjectScope: ObjectScope = .graph,
        behaviors: [any Behavior] = []
    ) {
        container = Container(parent: parent?.container, defaultObjectScope: defaultObjectScope, behaviors: behaviors)
        run(assemblies)
    }

    /// Makes an assembler and applies `assemblies`; kept for code written for Swinject's throwing form.
    @available(*, deprecated, message: "Use init(_:container:), which does not throw.")
    public convenience init(assemblies: [any Assembly], container: Container? = Container()) throws {
        self.init(assemblies, container: container ?? Container())
    }

    /// Makes an assembler under a parent and applies `assemblies`; kept for code written for Swinject.
    @available(*, deprecated, message: "Use init(_:parent:), which does not throw.")
    public convenience init(assemblies: [any Assembly], parentAssembler: Assembler?) throws {
        self.init(assemblies, parent: parentAssembler)
    }

    /// Applies one more assembly, then calls its `loaded(resolver:)`.
    public func apply(assembly: any Assembly) {
        run([assembly])
    }

    /// Applies more assemblies, then calls their `loaded(resolver:)`.
    public func apply(assemblies: [any Assembly]) {
        run(assemblies)
    }

    private func run(_ assemblies: [any Assembly]) {
        for assembly in assemblies {
            assembly.assemble(container: container)
        }
        for assembly in assemblies {
            assembly.loaded(resolver: resolver)
        }
    }
}
