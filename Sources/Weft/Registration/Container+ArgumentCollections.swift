/// Collections whose elements take runtime arguments: the argument types are part of the collection's key, and
/// an element's factory may be synchronous or `async`, as a registration's with arguments may.
extension Container {
    /// Adds an element whose `async` factory takes runtime arguments to the list `collectionType`; chosen over
    /// the synchronous ``contribute(to:name:id:factory:)`` with arguments when the closure awaits.
    ///
    /// ```swift
    /// container.contribute(to: [any Plugin].self) { (r, config: PluginConfig) in
    ///     RemotePlugin(session: try await r.require(Session.self), config: config)
    /// }
    /// container.contribute(to: [any Plugin].self) { (_, config: PluginConfig) in MetricsPlugin(config: config) }
    ///
    /// let plugins = try await container.async.require([any Plugin].self, arguments: config)
    /// ```
    ///
    /// The element belongs to the list resolved with the same argument types, beside the synchronous elements
    /// that take them, and follows the rules of both: the list resolves from async code
    /// (`container.async.require(_:arguments:)`, or an async factory's resolver), every element in order, each in
    /// its own scope and receiving the arguments; a synchronous resolve of it fails with
    /// ``ResolutionError/Reason/requiresAsync``, as one of any async registration does. `verify()` does not build
    /// registrations with runtime arguments, these elements included.
    ///
    /// - Parameters:
    ///   - collectionType: The list, e.g. `[any Plugin].self`.
    ///   - name: Tells apart lists of the same type.
    ///   - id: Names the element, so that a later contribution with the same `id` replaces it.
    ///   - factory: Makes the element from an async resolver and the runtime arguments; it may suspend and throw.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Element, First, each Other>(
        to collectionType: [Element].Type,
        name: String? = nil,
        id: String? = nil,
        factory: @escaping @Sendable (AsyncResolver, First, repeat each Other) async throws -> Element
    ) -> ServiceEntry<Element> {
        addListElement(
            asyncEntry(Element.self, factory: factory), to: collectionType, name: name, id: id,
            taking: PackBox<(First, repeat each Other)>.self)
    }

    /// Adds the element `key`, whose `async` factory takes runtime arguments, to the map `collectionType`; chosen
    /// over the synchronous ``contribute(to:key:name:factory:)`` with arguments when the closure awaits.
    ///
    /// ```swift
    /// container.contribute(to: [String: any Handler].self, key: "feed") { (r, config: Config) in
    ///     FeedHandler(store: try await r.require(FeedStore.self), config: config)
    /// }
    /// let handlers = try await container.async.require([String: any Handler].self, arguments: config)
    /// ```
    ///
    /// A map with such an element resolves from async code only, as a list does (see
    /// `contribute(to:name:id:factory:)` with an async closure that takes arguments).
    ///
    /// - Parameters:
    ///   - collectionType: The map, e.g. `[String: any Handler].self`.
    ///   - key: The element's key in the map.
    ///   - name: Tells apart maps of the same type.
    ///   - factory: Makes the element from an async resolver and the runtime arguments; it may suspend and throw.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Key: Hashable & Sendable, Value, First, each Other>(
        to collectionType: [Key: Value].Type,
        key: Key,
        name: String? = nil,
        factory: @escaping @Sendable (AsyncResolver, First, repeat each Other) async throws -> Value
    ) -> ServiceEntry<Value> {
        addMapElement(
            asyncEntry(Value.self, factory: factory), to: collectionType, key: key, name: name,
            taking: PackBox<(First, repeat each Other)>.self)
    }

    /// Registers `element`, whose factory takes the arguments `(First, Other...)`, as an element of the list
    /// `collectionType` resolved with those arguments.
    func addListElement<Element, First, each Other>(
        _ element: ServiceEntry<Element>,
        to collectionType: [Element].Type,
        name: String?,
        id: String?,
        taking _: PackBox<(First, repeat each Other)>.Type
    ) -> ServiceEntry<Element> {
        let argumentsType = (any Resolver, First, repeat each Other).self
        let book = listBook(collectionType, name: name, taking: PackBox<(First, repeat each Other)>.self)
        book.add(collection: collectionType, place: id.map { .id($0) }) { option in
            let key = ServiceKey(serviceType: Element.self, argumentsType: argumentsType, name: name, option: option)
            add(element, as: Element.self, key: key)
        }
        return element
    }

    /// Registers `element`, whose factory takes the arguments `(First, Other...)`, as the element `key` of the
    /// map `collectionType` resolved with those arguments.
    func addMapElement<Key: Hashable & Sendable, Value, First, each Other>(
        _ element: ServiceEntry<Value>,
        to collectionType: [Key: Value].Type,
        key: Key,
        name: String?,
        taking _: PackBox<(First, repeat each Other)>.Type
    ) -> ServiceEntry<Value> {
        let argumentsType = (any Resolver, First, repeat each Other).self
        let book = mapBook(collectionType, name: name, taking: PackBox<(First, repeat each Other)>.self)
        book.add(collection: collectionType, place: .key(key)) { option in
            let elementKey = ServiceKey(
                serviceType: Value.self, argumentsType: argumentsType, name: name, option: option)
            add(element, as: Value.self, key: elementKey)
        }
        return element
    }

    /// This container's book of the list `collectionType` resolved with the arguments `(First, Other...)`; the
    /// first call registers the list.
    func listBook<Element, First, each Other>(
        _ collectionType: [Element].Type,
        name: String?,
        taking _: PackBox<(First, repeat each Other)>.Type
    ) -> CollectionBook {
        let argumentsType = (any Resolver, First, repeat each Other).self
        return collectionBook(collectionType, name: name, argumentsType: argumentsType) { book in
            let entry = ServiceEntry(
                serviceType: collectionType, argumentsType: argumentsType,
                factory: factoryBox {
                    (resolver: any Resolver, first: First, other: repeat each Other) in
                    try book.makeList(resolver, as: Element.self, arguments: first, repeat each other)
                },
                objectScope: .transient)
            let spreader = argumentSpreader(First.self, repeat (each Other).self)
            entry.asyncFactory = AsyncFactory { resolver, arguments in
                guard let arguments = arguments as? PackBox<(First, repeat each Other)> else { return nil }
                return Made(
                    value: try await book.makeList(resolver, as: Element.self, arguments: arguments, spreader: spreader)
                )
            }
            return entry
        }
    }

    /// This container's book of the map `collectionType` resolved with the arguments `(First, Other...)`; the
    /// first call registers the map.
    func mapBook<Key: Hashable & Sendable, Value, First, each Other>(
        _ collectionType: [Key: Value].Type,
        name: String?,
        taking _: PackBox<(First, repeat each Other)>.Type
    ) -> CollectionBook {
        let argumentsType = (any Resolver, First, repeat each Other).self
        return collectionBook(collectionType, name: name, argumentsType: argumentsType) { book in
            let entry = ServiceEntry(
                serviceType: collectionType, argumentsType: argumentsType,
                factory: factoryBox {
                    (resolver: any Resolver, first: First, other: repeat each Other) in
                    try book.makeMap(resolver, as: collectionType, arguments: first, repeat each other)
                },
                objectScope: .transient)
            let spreader = argumentSpreader(First.self, repeat (each Other).self)
            entry.asyncFactory = AsyncFactory { resolver, arguments in
                guard let arguments = arguments as? PackBox<(First, repeat each Other)> else { return nil }
                return Made(
                    value: try await book.makeMap(
                        resolver, as: collectionType, arguments: arguments, spreader: spreader))
            }
            return entry
        }
    }

    /// Declares the list `collectionType` resolved with runtime arguments of the types given, so that it resolves (to
    /// `[]` while nothing is contributed) instead of being missing, as ``declareCollection(_:name:)-([Element].,_)``
    /// does for a list without arguments.
    ///
    /// ```swift
    /// container.declareCollection([any Plugin].self, arguments: PluginConfig.self)
    /// let plugins = try container.require([any Plugin].self, argument: config)   // [] until contributed
    /// ```
    ///
    /// The argument types are those of the elements' factories, in order (`contribute(to:) { (r, config:
    /// PluginConfig) in ... }`); contributing declares the list too.
    public func declareCollection<Element, First, each Other>(
        _ collectionType: [Element].Type,
        name: String? = nil,
        arguments first: First.Type,
        _ other: repeat (each Other).Type
    ) {
        _ = listBook(collectionType, name: name, taking: PackBox<(First, repeat each Other)>.self)
    }

    /// Declares the map `collectionType` resolved with runtime arguments of the types given, so that it resolves
    /// (to `[:]` while nothing is contributed) instead of being missing.
    ///
    /// ```swift
    /// container.declareCollection([String: any Handler].self, arguments: Config.self)
    /// ```
    public func declareCollection<Key: Hashable & Sendable, Value, First, each Other>(
        _ collectionType: [Key: Value].Type,
        name: String? = nil,
        arguments first: First.Type,
        _ other: repeat (each Other).Type
    ) {
        _ = mapBook(collectionType, name: name, taking: PackBox<(First, repeat each Other)>.self)
    }
}

extension CollectionBook {
    /// Makes the list as ``makeList(_:as:arguments:)`` does, from async code: each element through `resolver`,
    /// with `arguments`, which `spreader` hands to a synchronous element's factory.
    nonisolated(nonsending) func makeList<Element, Arguments>(
        _ resolver: AsyncResolver,
        as elementType: Element.Type,
        arguments: PackBox<Arguments>,
        spreader: ArgumentSpreader<Arguments>
    ) async throws -> [Element] {
        let options = listOptions()
        var result: [Element] = []
        result.reserveCapacity(options.count)
        for option in options {
            result.append(try await element(Element.self, option: option, resolver, arguments, spreader))
        }
        return result
    }

    /// Makes the map as ``makeMap(_:as:arguments:)`` does, from async code: each element through `resolver`, with
    /// `arguments`, which `spreader` hands to a synchronous element's factory.
    nonisolated(nonsending) func makeMap<Key: Hashable, Value, Arguments>(
        _ resolver: AsyncResolver,
        as mapType: [Key: Value].Type,
        arguments: PackBox<Arguments>,
        spreader: ArgumentSpreader<Arguments>
    ) async throws -> [Key: Value] {
        var result: [Key: Value] = [:]
        for (key, option) in mapEntries(Key.self) {
            result[key] = try await element(Value.self, option: option, resolver, arguments, spreader)
        }
        return result
    }

    /// The element contributed under `option`, made with `arguments` from async code.
    nonisolated(nonsending) private func element<Element, Arguments>(
        _: Element.Type,
        option: any ServiceKeyOption,
        _ resolver: AsyncResolver,
        _ arguments: PackBox<Arguments>,
        _ spreader: ArgumentSpreader<Arguments>
    ) async throws -> Element {
        let name = collectionKey.name
        let key = ServiceKey(
            serviceType: Element.self, argumentsType: spreader.argumentsType, name: name, option: option)
        let request = ForwardRequest<Element>(name: name, option: option)
        let (spread, container) = (spreader.make, resolver.container)
        return try await resolver.require(Element.self, key: key, arguments: arguments) {
            try spread(request, container, arguments.values)
        }
    }
}
