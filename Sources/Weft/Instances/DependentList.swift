/// The registrations whose kept instances were made with an instance of one registration, so that discarding
/// that instance discards theirs too (see ``_ServiceEntryBase/discardInstanceAndDependents(includingOwn:)``).
/// Guarded by the registration's lock; refers to each dependent weakly, since a dependent may be removed first.
///
/// The same dependent is recorded again by every instance it makes (a scope's, each request): the list
/// remembers the ``_ServiceEntryBase/serial`` of the last one added, and comparing a number spares loading each
/// weak reference (through its side table) to find it already there. Sound because serials are never reused and
/// the list only loses entries when taken.
struct DependentList {
    private var dependents: [WeakReference<_ServiceEntryBase>] = []
    /// The serial of the last dependent added since the list was last taken; 0 for none.
    private var last: UInt64 = 0

    /// Records `dependent` unless it is in the list already; dependents released since are dropped.
    mutating func add(_ dependent: _ServiceEntryBase) {
        guard dependent.serial != last else { return }
        last = dependent.serial
        guard !dependents.contains(where: { $0.object === dependent }) else { return }
        dependents.removeAll { $0.object == nil }
        dependents.append(WeakReference(dependent))
    }

    /// The dependents that still exist, emptying the list.
    mutating func take() -> [_ServiceEntryBase] {
        guard !dependents.isEmpty else { return [] }
        defer { self = DependentList() }
        return dependents.compactMap(\.object)
    }
}
