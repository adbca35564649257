extension Container {
    /// Adds an element whose factory takes runtime arguments to the list `collectionType`: resolving the list
    /// with those arguments passes them to each of its elements.
    ///
    /// ```swift
    /// container.contribute(to: [any Plugin].self) { (r, config: PluginConfig) in
    ///     AuditPlugin(log: try r.require(Log.self), config: config)
    /// }
    /// container.contribute(to: [any Plugin].self) { (_, config: PluginConfig) in MetricsPlugin(config: config) }
    ///
    /// let plugins = try container.require([any Plugin].self, argument: config)   // [AuditPlugin, MetricsPlugin]
    /// ```
    ///
    /// The argument types are part of the list's key, as they are of any registration's: the elements that
    /// take `PluginConfig` make the list `require([any Plugin].self, argument: config)`, and those that take no
    /// arguments the separate list `require([any Plugin].self)`. Each element keeps its own scope (a
    /// `.container` element is made once, with the arguments of the first resolve, as any registration with
    /// arguments); order, names, children and `id` follow the rules of ``contribute(to:name:id:factory:)``.
    /// Element factories with arguments are synchronous, and maps take no arguments; the list resolves from
    /// async code with `container.async.require([any Plugin].self, arguments: config)`. `verify()` does not
    /// build registrations with runtime arguments, elements included.
    ///
    /// - Parameters:
    ///   - collectionType: The list, e.g. `[any Plugin].self`.
    ///   - name: Tells apart lists of the same type.
    ///   - id: Names the element, so that a later contribution with the same `id` replaces it.
    ///   - factory: Makes the element from a resolver and the runtime arguments.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Element, First, each Other>(
        to collectionType: [Element].Type,
        name: String? = nil,
        id: String? = nil,
        factory: @escaping (any Resolver, First, repeat each Other) throws -> Element
    ) -> ServiceEntry<Element> {
        let argumentsType = (any Resolver, First, repeat each Other).self
        let book = collectionBook(collectionType, name: name, argumentsType: argumentsType) { book in
            let make = FactoryBox<First, repeat each Other> {
                (resolver: any Resolver, first: First, other: repeat each Other) in
                try book.makeList(resolver, as: Element.self, arguments: first, repeat each other)
            }
            return ServiceEntry(
                serviceType: collectionType, argumentsType: argumentsType, factory: make, objectScope: .transient)
        }
        let option = book.add(collection: collectionType, place: id.map { .id($0) })
        let element = entry(Element.self, factory: factory)
        add(
            element, as: Element.self,
            key: ServiceKey(serviceType: Element.self, argumentsType: argumentsType, name: name, option: option))
        return element
    }
}
