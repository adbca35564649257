extension Container {
    /// Adds an element made by an `async` factory to the list `collectionType`; chosen over the synchronous
    /// ``contribute(to:name:id:factory:)`` when the closure awaits.
    ///
    /// ```swift
    /// container.contribute(to: [any Plugin].self) { r in
    ///     try await RemotePlugin(config: r.require(RemoteConfig.self))
    /// }
    /// container.contribute(to: [any Plugin].self) { _ in MetricsPlugin() }
    ///
    /// let plugins = try await container.async.require([any Plugin].self)   // [RemotePlugin, MetricsPlugin]
    /// ```
    ///
    /// A list with an async element resolves from async code only (`container.async`, or the ``AsyncResolver``
    /// an async factory receives): each element in order, each in its own scope, the synchronous ones too. A
    /// synchronous resolve of the list fails with ``ResolutionError/Reason/requiresAsync``, as a synchronous
    /// resolve of any async registration does (a `.container` element an async resolve already made is
    /// returned). `try await container.async.verify()` builds the async elements and checks their dependencies.
    /// The other rules are those of the synchronous overload.
    ///
    /// - Parameters:
    ///   - collectionType: The list, e.g. `[any Plugin].self`.
    ///   - name: Tells apart lists of the same type.
    ///   - id: Names the element, so that a later contribution with the same `id` replaces it.
    ///   - factory: Makes the element; it may suspend and throw.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Element>(
        to collectionType: [Element].Type,
        name: String? = nil,
        id: String? = nil,
        factory: @escaping @Sendable (AsyncResolver) async throws -> Element
    ) -> ServiceEntry<Element> {
        let book = collectionBook(collectionType, name: name) { listEntry($0, collectionType) }
        let option = book.add(collection: collectionType, place: id.map { .id($0) })
        return addContribution(asyncElement(factory), name: name, option: option)
    }

    /// Adds the element `key`, made by an `async` factory, to the map `collectionType`; chosen over the
    /// synchronous ``contribute(to:key:name:factory:)`` when the closure awaits.
    ///
    /// ```swift
    /// container.contribute(to: [String: any Handler].self, key: "feed") { r in
    ///     try await FeedHandler(store: r.require(FeedStore.self))
    /// }
    /// let handlers = try await container.async.require([String: any Handler].self)
    /// ```
    ///
    /// A map with an async element resolves from async code only, as a list does (see
    /// `contribute(to:name:id:factory:)` with an async closure).
    ///
    /// - Parameters:
    ///   - collectionType: The map, e.g. `[String: any Handler].self`.
    ///   - key: The element's key in the map.
    ///   - name: Tells apart maps of the same type.
    ///   - factory: Makes the element; it may suspend and throw.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Key: Hashable & Sendable, Value>(
        to collectionType: [Key: Value].Type,
        key: Key,
        name: String? = nil,
        factory: @escaping @Sendable (AsyncResolver) async throws -> Value
    ) -> ServiceEntry<Value> {
        let book = collectionBook(collectionType, name: name) { mapEntry($0, collectionType) }
        let option = book.add(collection: collectionType, place: .key(key))
        return addContribution(asyncElement(factory), name: name, option: option)
    }

    /// An element's registration whose factory is `factory`, async: a synchronous resolve of it fails with
    /// ``ResolutionError/Reason/requiresAsync``, as one of an async `register` does.
    private func asyncElement<Element>(
        _ factory: @escaping @Sendable (AsyncResolver) async throws -> Element
    ) -> ServiceEntry<Element> {
        let entry = ServiceEntry(
            serviceType: Element.self,
            plainFactory: { _ in throw asyncFactoryResolvedSynchronously() },
            objectScope: defaultObjectScope
        )
        entry.asyncFactory = TypedAsyncFactory(factory)
        return entry
    }
}
