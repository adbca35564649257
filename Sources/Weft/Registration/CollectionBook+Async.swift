/// A collection's registration and its async factory: a collection resolved from async code makes each element
/// through the async engine, so that an element whose factory is `async` is awaited, and one whose factory is
/// synchronous is made by the synchronous engine inside the same graph.
extension CollectionBook {
    /// Makes the list as ``makeList(_:as:)`` does, from async code: each element through `resolver`.
    nonisolated(nonsending) func makeList<Element>(
        _ resolver: AsyncResolver,
        as elementType: Element.Type
    ) async throws -> [Element] {
        let options = listOptions()
        var result: [Element] = []
        result.reserveCapacity(options.count)
        for option in options {
            result.append(try await resolver.require(Element.self, name: collectionKey.name, option: option))
        }
        return result
    }

    /// Makes the map as ``makeMap(_:as:)`` does, from async code: each element through `resolver`.
    nonisolated(nonsending) func makeMap<Key: Hashable, Value>(
        _ resolver: AsyncResolver,
        as mapType: [Key: Value].Type
    ) async throws -> [Key: Value] {
        let all = records()
        let last = Self.lastIndices(all)
        var result: [Key: Value] = [:]
        result.reserveCapacity(last.count)
        for (index, record) in all.enumerated() {
            guard let mapKey = record.identity, last[mapKey] == index, let key = mapKey.base as? Key else { continue }
            result[key] = try await resolver.require(Value.self, name: collectionKey.name, option: record.option)
        }
        return result
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
