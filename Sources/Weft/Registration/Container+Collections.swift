extension Container {
    /// Adds an element to the list `collectionType`: resolving `[Element]` returns every element contributed to
    /// it, each made by its own factory, in the order they were contributed.
    ///
    /// ```swift
    /// container.contribute(to: [any Plugin].self) { r in AuditPlugin(log: try r.require(Log.self)) }
    ///     .inObjectScope(.container)
    /// container.contribute(to: [any Plugin].self) { _ in MetricsPlugin() }
    ///
    /// let plugins = try container.require([any Plugin].self)   // [AuditPlugin, MetricsPlugin]
    /// container.register(PluginHost.self) { r in PluginHost(plugins: try r.require([any Plugin].self)) }
    /// ```
    ///
    /// The rules:
    ///
    /// - **One service.** The list is resolved like any other service (`resolve`, `require`, `async.require`,
    ///   a factory's `r.require([any Plugin].self)`), anew on each resolve; `verify()` checks every element and
    ///   the dependency graph draws the list with an edge to each element.
    /// - **Each element in its own scope.** The returned registration is the element's: set its scope (the
    ///   container's default scope, `.graph`, unless set) and `initCompleted` callbacks on it. A `.container`
    ///   element is made once and is the same instance in every list; a `.transient` one is made for each list.
    /// - **Order.** A parent's elements come first, then the child's, each container's in the order they were
    ///   contributed; a parent's contribution made after the child's still comes first.
    /// - **Names.** `name` keeps separate lists of one type: `require([any Plugin].self, name: "admin")`.
    /// - **Empty.** A list nothing was contributed to yet exists once it is declared with
    ///   ``declareCollection(_:name:)-([Element].,_)``; it then resolves to `[]`.
    /// - **Replacing an element.** An element contributed with an `id` is replaced by a later contribution with the
    ///   same `id`, which takes its place in the list: in one container the earlier element's registration is
    ///   replaced (its kept instance discarded); a child's hides its parent's in the child's list, and only the
    ///   child's is made. `contribute(to: [any Plugin].self, id: "audit") { _ in FakeAudit() }` in a test
    ///   replaces the app's `"audit"` plugin.
    /// - **Async elements.** An element's factory may be `async` (the overload taking an ``AsyncResolver``): the
    ///   list then resolves with `try await container.async.require([any Plugin].self)`, every element in
    ///   order, each in its own scope; a synchronous resolve of it fails with
    ///   ``ResolutionError/Reason/requiresAsync``, as one of any async registration does.
    /// - **Runtime arguments.** Elements contributed with a factory that takes runtime arguments (the overload
    ///   with `(r, config: Config)`) make the separate list `require([any Plugin].self, argument: config)`,
    ///   each receiving the arguments; maps take them the same way, with `key:`.
    ///
    /// Registering `[Element]` under the same name with `register` replaces the list with that registration.
    ///
    /// - Parameters:
    ///   - collectionType: The list, e.g. `[any Plugin].self`.
    ///   - name: Tells apart lists of the same type.
    ///   - id: Names the element, so that a later contribution with the same `id` replaces it (see above).
    ///   - factory: Makes the element.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Element>(
        to collectionType: [Element].Type,
        name: String? = nil,
        id: String? = nil,
        factory: @escaping (any Resolver) throws -> Element
    ) -> ServiceEntry<Element> {
        let book = collectionBook(collectionType, name: name) { listEntry($0, collectionType) }
        return book.add(collection: collectionType, place: id.map { .id($0) }) {
            addContribution(Element.self, name: name, option: $0, factory: factory)
        }
    }

    /// Adds the element `key` to the map `collectionType`: resolving `[Key: Value]` returns every element
    /// contributed to it, each made by its own factory.
    ///
    /// ```swift
    /// container.contribute(to: [String: any Handler].self, key: "users") { _ in UsersHandler() }
    /// container.contribute(to: [String: any Handler].self, key: "orders") { r in
    ///     OrdersHandler(store: try r.require(OrderStore.self))
    /// }
    /// let handlers = try container.require([String: any Handler].self)   // ["users": ..., "orders": ...]
    /// ```
    ///
    /// Maps follow the rules of lists (see ``contribute(to:name:id:factory:)-(_,_,_,(Resolver)->Element)``), and one of
    /// their own for keys: **a later contribution under the same key replaces the earlier one**, as a later
    /// registration replaces an earlier one with the same key. In one container the earlier element's registration is
    /// replaced (its kept instance discarded); a child's element under a key its parent also contributes hides the
    /// parent's in the child's map, and only the child's is made.
    ///
    /// - Parameters:
    ///   - collectionType: The map, e.g. `[String: any Handler].self`.
    ///   - key: The element's key in the map.
    ///   - name: Tells apart maps of the same type.
    ///   - factory: Makes the element.
    /// - Returns: The element's registration, to set its scope and callbacks.
    @discardableResult
    public func contribute<Key: Hashable & Sendable, Value>(
        to collectionType: [Key: Value].Type,
        key: Key,
        name: String? = nil,
        factory: @escaping (any Resolver) throws -> Value
    ) -> ServiceEntry<Value> {
        let book = collectionBook(collectionType, name: name) { mapEntry($0, collectionType) }
        return book.add(collection: collectionType, place: .key(key)) {
            addContribution(Value.self, name: name, option: $0, factory: factory)
        }
    }

    /// Declares the list `collectionType`, so that it resolves (to `[]` while nothing is contributed) instead of
    /// being missing, as Dagger's `@Multibinds` does.
    ///
    /// ```swift
    /// container.declareCollection([any Plugin].self)
    /// let plugins = try container.require([any Plugin].self)   // [] until something is contributed
    /// ```
    ///
    /// Contributing declares the collection too; declaring it again, or after contributing, changes nothing.
    public func declareCollection<Element>(_ collectionType: [Element].Type, name: String? = nil) {
        _ = collectionBook(collectionType, name: name) { listEntry($0, collectionType) }
    }

    /// Declares the map `collectionType`, so that it resolves (to `[:]` while nothing is contributed) instead of
    /// being missing.
    ///
    /// ```swift
    /// container.declareCollection([String: any Handler].self)
    /// ```
    public func declareCollection<Key: Hashable & Sendable, Value>(
        _ collectionType: [Key: Value].Type,
        name: String? = nil
    ) {
        _ = collectionBook(collectionType, name: name) { mapEntry($0, collectionType) }
    }

    /// This container's book of the collection `collectionType` named `name`; the first call makes it and
    /// registers the collection, with the registration `makeEntry` makes for the book.
    func collectionBook<Collection>(
        _ collectionType: Collection.Type,
        name: String?,
        argumentsType: Any.Type = noArguments,
        makeEntry: (CollectionBook) -> ServiceEntry<Collection>
    ) -> CollectionBook {
        let key = ServiceKey(serviceType: collectionType, argumentsType: argumentsType, name: name)
        let (book, made) = lock.withLock {
            let table = compositions ?? CompositionTable()
            compositions = table
            if let book = table.book(for: key) { return (book, false) }
            let book = CollectionBook(collectionKey: key, parent: parent)
            table.setBook(book, for: key)
            return (book, true)
        }
        // Registered outside the lock: adding takes it and tells the behaviors.
        if made {
            let entry = makeEntry(book)
            entry.isCollection = true
            book.setRegistration(entry)
            add(entry, as: collectionType, key: key)
        }
        return book
    }

    /// Registers the element made by `factory` under the key of its contribution.
    private func addContribution<Element>(
        _ elementType: Element.Type,
        name: String?,
        option: ContributionOption,
        factory: @escaping (any Resolver) throws -> Element
    ) -> ServiceEntry<Element> {
        let entry = ServiceEntry(serviceType: elementType, plainFactory: factory, objectScope: defaultObjectScope)
        return addContribution(entry, name: name, option: option)
    }

    /// Registers `entry`, an element's registration, under the key of its contribution.
    func addContribution<Element>(
        _ entry: ServiceEntry<Element>,
        name: String?,
        option: ContributionOption
    ) -> ServiceEntry<Element> {
        let elementType = Element.self
        let key = ServiceKey(serviceType: elementType, argumentsType: noArguments, name: name, option: option)
        add(entry, as: elementType, key: key)
        return entry
    }
}

/// The registration of the list `collectionType` whose contributions `book` keeps: its synchronous factory
/// makes the list with a synchronous resolve, its async one with an async resolve (see
/// `contribute(to:name:id:factory:)` with an async closure).
func listEntry<Element>(_ book: CollectionBook, _ collectionType: [Element].Type) -> ServiceEntry<[Element]> {
    let entry = ServiceEntry(
        serviceType: collectionType,
        plainFactory: { resolver in try book.makeList(resolver, as: Element.self) },
        objectScope: .transient)
    entry.asyncFactory = TypedAsyncFactory { resolver in try await book.makeList(resolver, as: Element.self) }
    return entry
}

/// The registration of the map `collectionType` whose contributions `book` keeps (see ``listEntry(_:_:)``).
func mapEntry<Key: Hashable & Sendable, Value>(
    _ book: CollectionBook,
    _ collectionType: [Key: Value].Type
) -> ServiceEntry<[Key: Value]> {
    let entry = ServiceEntry(
        serviceType: collectionType,
        plainFactory: { resolver in try book.makeMap(resolver, as: collectionType) },
        objectScope: .transient)
    entry.asyncFactory = TypedAsyncFactory { resolver in try await book.makeMap(resolver, as: collectionType) }
    return entry
}
