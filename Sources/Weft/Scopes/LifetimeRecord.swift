/// What a container keeps for its end: the instances to tear down, in creation order, and, for a scope, its
/// copies of `.scoped` registrations. Guarded by the container's lock.
struct LifetimeRecord {
    var owned: [OwnedInstance] = []
    var copies = ScopeCopies()
    var ended = false
    /// Whether a copy was handed to the registry lookup, whose answers threads cache: then ending the scope
    /// must make them look again (see ``Container/beginEnd()``).
    var copiesCached = false
}

/// What names an instance to tear down in errors and logs: its registered type, described only when a message
/// needs it (describing a type costs thousands of instructions, and most teardowns succeed), or a text.
struct TeardownName: @unchecked Sendable {
    private let type: Any.Type?
    private let text: String

    init(_ type: Any.Type) {
        self.type = type
        text = ""
    }

    init(_ text: String) {
        type = nil
        self.text = text
    }

    /// The name, as messages show it.
    var description: String {
        guard let type else { return text }
        return String(describing: type)
    }
}

/// A scope's copies of `.scoped` registrations, by original: the first kept inline (a unit of work often uses
/// one, and an array would cost the scope an allocation), the others in a list searched in order while it is
/// short, indexed by a dictionary once it is long.
struct ScopeCopies {
    private var first: (original: ObjectIdentifier, copy: _ServiceEntryBase)?
    private var others: [(original: ObjectIdentifier, copy: _ServiceEntryBase)] = []
    private var index: [ObjectIdentifier: Int]?

    private static let longest = 16

    /// Calls `body` with every copy, the first made first. Mutating though it changes nothing: called on the
    /// container's stored record in place, the copies are lent to `body` without being retained, where a
    /// non-mutating call would first copy the record out of the container.
    mutating func forEachCopy(_ body: (_ServiceEntryBase) -> Void) {
        // Lent unretained: the record keeps the copy, and `body` cannot change the record.
        if first != nil { Unmanaged.passUnretained(first.unsafelyUnwrapped.copy)._withUnsafeGuaranteedRef(body) }
        guard !others.isEmpty else { return }
        for other in others { body(other.copy) }
    }

    /// The copy of the registration `original`, if one was made, unretained (the record keeps it). The first copy
    /// is looked for inline: a unit of work often uses one `.scoped` registration.
    @inline(__always)
    func reference(of original: ObjectIdentifier) -> EntryReference? {
        if first?.original == original { return Unmanaged.passUnretained(first.unsafelyUnwrapped.copy) }
        guard !others.isEmpty else { return nil }
        return otherReference(of: original)
    }

    /// ``reference(of:)`` among the copies after the first.
    private func otherReference(of original: ObjectIdentifier) -> EntryReference? {
        if let index { return index[original].map { Unmanaged.passUnretained(others[$0].copy) } }
        return others.first { $0.original == original }.map { Unmanaged.passUnretained($0.copy) }
    }

    /// Takes the first copy out of the record (which no longer lists it), moved rather than copied.
    mutating func takeFirst() -> _ServiceEntryBase? {
        first.take()?.copy
    }

    /// Adds the copy of `original`.
    @inline(__always)
    mutating func add(_ copy: consuming _ServiceEntryBase, of original: ObjectIdentifier) {
        guard first != nil else {
            first = (original, copy)
            return
        }
        addOther(copy, of: original)
    }

    /// ``add(_:of:)`` after the first copy.
    private mutating func addOther(_ copy: consuming _ServiceEntryBase, of original: ObjectIdentifier) {
        others.append((original, copy))
        if index != nil {
            index?[original] = others.count - 1
        } else if others.count > Self.longest {
            index = Dictionary(uniqueKeysWithValues: others.enumerated().map { ($1.original, $0) })
        }
    }
}
