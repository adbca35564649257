/// What a container keeps for its end: the instances to tear down, in creation order, and, for a scope, its
/// copies of `.scoped` registrations. Guarded by the container's lock.
struct LifetimeRecord {
    var owned: [(instance: Any, label: String)] = []
    var copies = ScopeCopies()
    var ended = false
    /// Whether a copy was handed to the registry lookup, whose answers threads cache: then ending the scope
    /// must make them look again (see ``Container/beginEnd()``).
    var copiesCached = false
}

/// A scope's copies of `.scoped` registrations, by original: a list searched in order while it is short (a
/// scope usually makes a handful), indexed by a dictionary once it is long.
struct ScopeCopies {
    private(set) var copies: [(original: ObjectIdentifier, copy: _ServiceEntryBase)] = []
    private var index: [ObjectIdentifier: Int]?

    private static let longest = 16

    /// The copy of the registration `original`, if one was made.
    func copy(of original: ObjectIdentifier) -> _ServiceEntryBase? {
        if let index { return index[original].map { copies[$0].copy } }
        return copies.first { $0.original == original }?.copy
    }

    /// Adds the copy of `original`.
    mutating func add(_ copy: _ServiceEntryBase, of original: ObjectIdentifier) {
        copies.append((original, copy))
        if index != nil {
            index?[original] = copies.count - 1
        } else if copies.count > Self.longest {
            index = Dictionary(uniqueKeysWithValues: copies.enumerated().map { ($1.original, $0) })
        }
    }
}
