/// The contributions one container made to one collection, in the order they were made. The collection's
/// registration in that container holds its book, and its factory reads the books of the container's chain,
/// outermost parent first (see ``records()``), then resolves each element through its own registration.
///
/// Each element is an ordinary registration of the element type under a key of its own, told apart by a
/// ``ContributionOption``: it has its own scope, claims, instances and teardown, verification builds it and the
/// dependency graph draws it, and replacing the registration under that key replaces the element.
final class CollectionBook: @unchecked Sendable {
    /// One contribution: the option of its registration's key, and for a map, its key in the map.
    struct Record {
        let option: ContributionOption
        let mapKey: AnyHashable?
    }

    /// The collection's key (its type and name).
    let collectionKey: ServiceKey
    /// The parent of the container this book belongs to, whose books come first. Held strongly, as the container
    /// holds its parent: a parent never refers to its children.
    let parent: Container?
    /// How many parents the container has: tells its contributions apart from its parents'.
    let level: Int
    private let lock = Lock()
    /// Guarded by `lock`.
    private var own: [Record] = []

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

    /// Adds a contribution; for a map, one under a key already contributed here takes the earlier one's place (its
    /// registration has the same key and replaces the earlier one). Returns the option of its registration.
    func add(collection: Any.Type, mapKey: (any Hashable & Sendable)?) -> ContributionOption {
        guard let mapKey else {
            return lock.withLock {
                let option = ContributionOption(collection: collection, level: level, place: .position(own.count + 1))
                own.append(Record(option: option, mapKey: nil))
                return option
            }
        }
        // A map's key is compared outside the lock: its `==` is user code. Two contributions under one key at once
        // may both be recorded; they have the same option, and the map makes a key's last record only.
        let option = ContributionOption(collection: collection, level: level, place: .key(mapKey))
        let key = AnyHashable(mapKey)
        if lock.withLock({ own }).contains(where: { $0.mapKey == key }) { return option }
        lock.withLock { own.append(Record(option: option, mapKey: key)) }
        return option
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

    /// Makes the list: each element from its registration, through `resolver`, in the order of ``records()``.
    func makeList<Element>(_ resolver: any Resolver, as elementType: Element.Type) throws -> [Element] {
        let container = try Self.container(of: resolver, collection: [Element].self)
        return try records().map { record in
            try container.make(Element.self, name: collectionKey.name, option: record.option)
        }
    }

    /// Makes the map: each element from its registration, through `resolver`. A key contributed by a parent
    /// and again by a child is the child's (its contribution alone is made).
    func makeMap<Key: Hashable, Value>(_ resolver: any Resolver, as mapType: [Key: Value].Type) throws -> [Key: Value] {
        let container = try Self.container(of: resolver, collection: mapType)
        let all = records()
        var last: [AnyHashable: Int] = [:]
        for (index, record) in all.enumerated() {
            if let mapKey = record.mapKey { last[mapKey] = index }
        }
        var result: [Key: Value] = [:]
        result.reserveCapacity(last.count)
        for (index, record) in all.enumerated() {
            guard let mapKey = record.mapKey, last[mapKey] == index, let key = mapKey.base as? Key else { continue }
            result[key] = try container.make(Value.self, name: collectionKey.name, option: record.option)
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

/// Tells apart the registrations of a collection's elements (see ``CollectionBook``): the collection and the
/// element's place in it, a position for a list, a key for a map. Two contributions to a list never share an
/// option; two to a map under the same key do, so the later replaces the earlier.
struct ContributionOption: ServiceKeyOption {
    enum Place: Sendable {
        /// The position among its container's contributions to a list, from 1.
        case position(Int)
        /// The key in a map.
        case key(any Hashable & Sendable)
    }

    let collection: Any.Type
    /// The ``CollectionBook/level`` of the container contributing.
    let level: Int
    let place: Place

    /// How a path and the dependency graph write the element: `Array<any Plugin>#2`,
    /// `Dictionary<String, any Handler>["users"]`, with the collection's name after its type.
    func label(name: String?) -> String {
        var text = String(describing: collection)
        if let name { text += "[\"\(name)\"]" }
        switch place {
        case .position(let position): return text + "#\(position)"
        case .key(let key): return text + "[\(String(reflecting: key))]"
        }
    }

    var description: String {
        let element: String
        switch place {
        case .position(let position): element = "element #\(position)"
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
        case (.key(let left), .key(let right)): return AnyHashable(left) == AnyHashable(right)
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(collection))
        hasher.combine(level)
        switch place {
        case .position(let position): hasher.combine(position)
        case .key(let key): hasher.combine(AnyHashable(key))
        }
    }
}
