/// The contributions one container made to one collection, in the order they were made. The collection's
/// registration in that container holds its book, and its factory reads the books of the container's chain,
/// outermost parent first (see ``records()``), then resolves each element through its own registration.
///
/// Each element is an ordinary registration of the element type under a key of its own, told apart by a
/// ``ContributionOption``: it has its own scope, claims, instances and teardown, verification builds it and the
/// dependency graph draws it, and replacing the registration under that key replaces the element.
final class CollectionBook: @unchecked Sendable {
    /// One contribution: the option of its registration's key, and its identity: its key in a map, its `id` in a
    /// list (nil for a list element without one).
    struct Record {
        let option: ContributionOption
        let identity: AnyHashable?
    }

    /// The collection's key (its type and name).
    let collectionKey: ServiceKey
    /// The parent of the container this book belongs to, whose books come first. Held strongly, as the container
    /// holds its parent: a parent never refers to its children.
    let parent: Container?
    /// How many parents the container has: tells its contributions apart from its parents'.
    let level: Int
    private let lock = Lock()
    /// The collection's registration in the book's container, set once it is registered: the shared instances made
    /// with the collection are its dependents, discarded when the collection gains an element (see ``add``). Weak:
    /// that registration holds the book. Guarded by `lock`: a contribution on another thread may find the book
    /// before its registration is set.
    private weak var registration: _ServiceEntryBase?
    /// Guarded by `lock`.
    private var own: [Record] = []
    /// The positions given to contributions without an identity so far. Guarded by `lock`.
    private var positions = 0

    init(collectionKey: ServiceKey, parent: Container?) {
        self.collectionKey = collectionKey
        self.parent = parent
        var level = 0
        var container = parent
        while let current = container {
            level += 1
            container = current.parent
        }
        self.level = level
    }

    /// Adds a contribution at `place`, whose registration `register` adds under the option it receives; one with
    /// the identity of a contribution already made here (a map's key, a list's `id`) takes the earlier one's
    /// place: its registration has the same key and replaces the earlier one. The contribution is recorded only
    /// once `register` has returned, so that a collection resolved meanwhile never lists an element whose
    /// registration is not there yet. Returns what `register` returns.
    func add<Registered>(
        collection: Any.Type,
        place: ContributionOption.Place?,
        registering register: (ContributionOption) -> Registered
    ) -> Registered {
        guard let place, let identity = place.identity else {
            let option = lock.withLock {
                positions += 1
                return ContributionOption(collection: collection, level: level, place: .position(positions))
            }
            let registered = register(option)
            lock.withLock { own.append(Record(option: option, identity: nil)) }
            collectionGrew()
            return registered
        }
        // Compared outside the lock: a map key's `==` is user code. Two contributions with one identity at once may
        // both be recorded; they have the same option, and a collection makes an identity's last record only.
        let option = ContributionOption(collection: collection, level: level, place: place)
        let registered = register(option)
        if lock.withLock({ own }).contains(where: { $0.identity == identity }) { return registered }
        lock.withLock { own.append(Record(option: option, identity: identity)) }
        collectionGrew()
        return registered
    }

    /// A shared instance made with the collection holds it without the element just added: it is discarded, as one
    /// made with a replaced element is through that element's registration. After the locks: a discarded instance's
    /// deinit is user code.
    private func collectionGrew() {
        lock.withLock { registration }?.discardInstanceAndDependents()
    }

    /// Sets the collection's registration in the book's container (see ``registration``).
    func setRegistration(_ entry: _ServiceEntryBase) {
        lock.withLock { registration = entry }
    }

    /// The contributions of the whole chain: the outermost parent's first, this container's last.
    func records() -> [Record] {
        var books: [CollectionBook] = []
        var container = parent
        while let current = container {
            if let book = current.lock.withLock({ current.compositions?.book(for: collectionKey) }) {
                books.append(book)
            }
            container = current.parent
        }
        var result: [Record] = []
        for book in books.reversed() {
            result += book.lock.withLock { book.own }
        }
        return result + lock.withLock { own }
    }

    /// Makes the list: each element from its registration, through `resolver`, in the order of ``records()``. An
    /// element with an `id` contributed again (by a child, or again in one container) is made once, from the last
    /// contribution, at the place of the first.
    func makeList<Element>(_ resolver: any Resolver, as elementType: Element.Type) throws -> [Element] {
        let container = try Self.container(of: resolver, collection: [Element].self)
        return try listOptions().map { try container.make(Element.self, name: collectionKey.name, option: $0) }
    }

    /// Makes the list as ``makeList(_:as:)`` does, passing `arguments` to each element's factory.
    func makeList<Element, each Argument>(
        _ resolver: any Resolver,
        as elementType: Element.Type,
        arguments: repeat each Argument
    ) throws -> [Element] {
        let container = try Self.container(of: resolver, collection: [Element].self)
        return try listOptions().map { option in
            try container.make(
                Element.self, name: collectionKey.name, option: option, arguments: repeat each arguments)
        }
    }

    /// The options of the list's elements' registrations, in the order of ``records()``: an element with an
    /// `id` contributed again (by a child, or again in one container) is the last contribution, at the place of
    /// the first.
    func listOptions() -> [ContributionOption] {
        let all = records()
        let last = Self.lastIndices(all)
        var made: Set<AnyHashable> = []
        var result: [ContributionOption] = []
        result.reserveCapacity(all.count)
        for record in all {
            var option = record.option
            if let identity = record.identity, let index = last[identity] {
                guard made.insert(identity).inserted else { continue }
                option = all[index].option
            }
            result.append(option)
        }
        return result
    }

    /// The index of the last record of each identity.
    static func lastIndices(_ records: [Record]) -> [AnyHashable: Int] {
        var last: [AnyHashable: Int] = [:]
        for (index, record) in records.enumerated() {
            if let identity = record.identity { last[identity] = index }
        }
        return last
    }

    /// Makes the map: each element from its registration, through `resolver`. A key contributed by a parent
    /// and again by a child is the child's (its contribution alone is made).
    func makeMap<Key: Hashable, Value>(_ resolver: any Resolver, as mapType: [Key: Value].Type) throws -> [Key: Value] {
        let container = try Self.container(of: resolver, collection: mapType)
        var result: [Key: Value] = [:]
        for (key, option) in mapEntries(Key.self) {
            result[key] = try container.make(Value.self, name: collectionKey.name, option: option)
        }
        return result
    }

    /// The map's keys with the options of their elements' registrations: for a key contributed more than once
    /// (by a child, or again in one container), the last contribution.
    func mapEntries<Key: Hashable>(_: Key.Type) -> [(key: Key, option: ContributionOption)] {
        let all = records()
        let last = Self.lastIndices(all)
        var entries: [(key: Key, option: ContributionOption)] = []
        entries.reserveCapacity(last.count)
        for (index, record) in all.enumerated() {
            guard let mapKey = record.identity, last[mapKey] == index, let key = mapKey.base as? Key else { continue }
            entries.append((key, record.option))
        }
        return entries
    }

    /// Makes the map as ``makeMap(_:as:)`` does, passing `arguments` to each element's factory.
    func makeMap<Key: Hashable, Value, each Argument>(
        _ resolver: any Resolver,
        as mapType: [Key: Value].Type,
        arguments: repeat each Argument
    ) throws -> [Key: Value] {
        let container = try Self.container(of: resolver, collection: mapType)
        var result: [Key: Value] = [:]
        for (key, option) in mapEntries(Key.self) {
            result[key] = try container.make(
                Value.self, name: collectionKey.name, option: option, arguments: repeat each arguments)
        }
        return result
    }

    /// The container a collection's factory resolves its elements through: the resolver it received.
    private static func container(of resolver: any Resolver, collection: Any.Type) throws -> Container {
        guard let container = resolver as? Container else {
            throw ResolutionError.fromInsideFactory(.typeMismatch, serviceType: collection)
        }
        return container
    }
}

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
        var result: [Key: Value] = [:]
        for (key, option) in mapEntries(Key.self) {
            result[key] = try await resolver.require(Value.self, name: collectionKey.name, option: option)
        }
        return result
    }
}

/// Tells apart the registrations of a collection's elements (see ``CollectionBook``): the collection and the
/// element's place in it: a position or an `id` for a list, a key for a map. Two contributions never share an
/// option, unless one container makes both with the same `id` or map key: the later then replaces the earlier.
struct ContributionOption: ServiceKeyOption {
    enum Place: Sendable {
        /// The position among its container's contributions to a list, from 1.
        case position(Int)
        /// The `id` of an element of a list.
        case id(String)
        /// The key in a map.
        case key(any Hashable & Sendable)

        /// What a later contribution repeats to take this one's place: the `id` or the key; nil for a position.
        var identity: AnyHashable? {
            switch self {
            case .position: return nil
            case .id(let id): return AnyHashable(id)
            case .key(let key): return AnyHashable(key)
            }
        }
    }

    let collection: Any.Type
    /// The ``CollectionBook/level`` of the container contributing.
    let level: Int
    let place: Place

    /// How a path and the dependency graph write the element: `Array<Plugin>#2`,
    /// `Dictionary<String, Handler>["users"]`, with the collection's name after its type.
    func label(name: String?) -> String {
        var text = String(describing: collection)
        if let name { text += "[\"\(name)\"]" }
        switch place {
        case .position(let position): return text + "#\(position)"
        case .id(let id): return text + "#\(id)"
        case .key(let key): return text + "[\(String(reflecting: key))]"
        }
    }

    var description: String {
        let element: String
        switch place {
        case .position(let position): element = "element #\(position)"
        case .id(let id): element = "element #\(id)"
        case .key(let key): element = "element [\(String(reflecting: key))]"
        }
        return element + " of \(collection)" + (level == 0 ? "" : " (container level \(level))")
    }

    func isEqualTo(_ another: any ServiceKeyOption) -> Bool {
        guard let another = another as? ContributionOption, another.collection == collection,
            another.level == level
        else { return false }
        switch (place, another.place) {
        case (.position(let left), .position(let right)): return left == right
        case (.id(let left), .id(let right)): return left == right
        case (.key(let left), .key(let right)): return AnyHashable(left) == AnyHashable(right)
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(collection))
        hasher.combine(level)
        switch place {
        case .position(let position): hasher.combine(position)
        case .id(let id): hasher.combine(id)
        case .key(let key): hasher.combine(AnyHashable(key))
        }
    }
}
