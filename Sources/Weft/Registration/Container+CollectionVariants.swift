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
        return book.add(collection: collectionType, place: id.map { .id($0) }) {
            addContribution(asyncElement(factory), name: name, option: $0)
        }
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
        return book.add(collection: collectionType, place: .key(key)) {
            addContribution(asyncElement(factory), name: name, option: $0)
        }
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
    /// The argument types are part of the list's key, as they are of any registration's: the elements that take
    /// `PluginConfig` make the list `require([any Plugin].self, argument: config)`, and those that take no arguments
    /// the separate list `require([any Plugin].self)`. Each element keeps its own scope (a `.container` element is made
    /// once, with the arguments of the first resolve, as any registration with arguments); order, names, children and
    /// `id` follow the rules of ``contribute(to:name:id:factory:)``. An element's factory with arguments may also be
    /// `async` (the overload taking an ``AsyncResolver``), and maps take arguments too (see
    /// ``contribute(to:key:name:factory:)-(_,_,_,(Resolver,First,Other)->Value)`` with arguments); the list resolves
    /// from async code with `container.async.require([any Plugin].self, arguments: config)`. `verify()` does not build
    /// registrations with runtime arguments, elements included.
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
        addListElement(
            entry(Element.self, factory: factory), to: collectionType, name: name, id: id,
            taking: PackBox<(First, repeat each Other)>.self)
    }

    /// Adds the element `key`, whose factory takes runtime arguments, to the map `collectionType`: resolving the
    /// map with those arguments passes them to each of its elements.
    ///
    /// ```swift
    /// container.contribute(to: [String: any Handler].self, key: "users") { (r, config: Config) in
    ///     UsersHandler(store: try r.require(UserStore.self), config: config)
    /// }
    /// let handlers = try container.require([String: any Handler].self, argument: config)
    /// ```
    ///
    /// As for lists (see ``contribute(to:name:id:factory:)-(_,_,_,(Resolver,First,Other)->Element)`` with arguments),
    /// the argument types are part of the map's key: the elements that take `Config` make the map `require([String: any
    /// Handler].self, argument: config)`, separate from the map without arguments. A later contribution under the same
    /// key replaces the earlier one, a child's hides its parent's; each element keeps its own scope.
    ///
    /// - Parameters:
    ///   - collectionType: The map, e.g. `[String: any Handler].self`.
    ///   - key: The element's key in the map.
    ///   - name: Tells apart maps of the same type.
    ///   - factory: Makes the element from a resolver and the runtime arguments.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Key: Hashable & Sendable, Value, First, each Other>(
        to collectionType: [Key: Value].Type,
        key: Key,
        name: String? = nil,
        factory: @escaping (any Resolver, First, repeat each Other) throws -> Value
    ) -> ServiceEntry<Value> {
        addMapElement(
            entry(Value.self, factory: factory), to: collectionType, key: key, name: name,
            taking: PackBox<(First, repeat each Other)>.self)
    }
}

/// Collection elements made on the main actor, as `register` makes a service with a `@MainActor` factory (see
/// `Container+MainActor.swift`): resolved from main-actor code, or from async code, which runs the factory on the
/// main actor; elsewhere the element fails with ``ResolutionError/Reason/notOnMainActor``.
extension Container {
    /// Adds an element made on the main actor to the list `collectionType`; chosen when the closure is
    /// `@MainActor`.
    ///
    /// ```swift
    /// container.contribute(to: [any Panel].self) { @MainActor r in SettingsPanel(store: try r.require()) }
    /// ```
    ///
    /// The rules are those of ``contribute(to:name:id:factory:)``; the element is made as a `@MainActor`
    /// registration's instance is.
    ///
    /// - Parameters:
    ///   - collectionType: The list, e.g. `[any Panel].self`.
    ///   - name: Tells apart lists of the same type.
    ///   - id: Names the element, so that a later contribution with the same `id` replaces it.
    ///   - factory: Makes the element on the main actor; it may throw.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Element>(
        to collectionType: [Element].Type,
        name: String? = nil,
        id: String? = nil,
        factory: @escaping @MainActor (any Resolver) throws -> sending Element
    ) -> ServiceEntry<Element> {
        let book = collectionBook(collectionType, name: name) { listEntry($0, collectionType) }
        return book.add(collection: collectionType, place: id.map { .id($0) }) {
            addContribution(mainActorElement(factory), name: name, option: $0)
        }
    }

    /// Adds the element `key`, made on the main actor, to the map `collectionType`; chosen when the closure is
    /// `@MainActor`.
    ///
    /// ```swift
    /// container.contribute(to: [String: any Panel].self, key: "settings") { @MainActor r in SettingsPanel() }
    /// ```
    ///
    /// - Parameters:
    ///   - collectionType: The map, e.g. `[String: any Panel].self`.
    ///   - key: The element's key in the map.
    ///   - name: Tells apart maps of the same type.
    ///   - factory: Makes the element on the main actor; it may throw.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Key: Hashable & Sendable, Value>(
        to collectionType: [Key: Value].Type,
        key: Key,
        name: String? = nil,
        factory: @escaping @MainActor (any Resolver) throws -> sending Value
    ) -> ServiceEntry<Value> {
        let book = collectionBook(collectionType, name: name) { mapEntry($0, collectionType) }
        return book.add(collection: collectionType, place: .key(key)) {
            addContribution(mainActorElement(factory), name: name, option: $0)
        }
    }

    /// An element's registration whose factory runs on the main actor.
    private func mainActorElement<Element>(
        _ factory: @escaping @MainActor (any Resolver) throws -> sending Element
    ) -> ServiceEntry<Element> {
        let entry = ServiceEntry(
            serviceType: Element.self,
            plainFactory: { (resolver: any Resolver) throws -> Element in try runOnMainActor(factory, resolver) },
            objectScope: defaultObjectScope
        )
        // Set before the element is published: an async resolve then runs it on the main actor.
        entry.runsOnMainActor = true
        return entry
    }
}
