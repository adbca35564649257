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
        let option = book.add(collection: collectionType, place: id.map { .id($0) })
        return addContribution(mainActorElement(factory), name: name, option: option)
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
        let option = book.add(collection: collectionType, place: .key(key))
        return addContribution(mainActorElement(factory), name: name, option: option)
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
