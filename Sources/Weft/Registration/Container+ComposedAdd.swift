/// How a container with compositions (decorators or collections, see ``CompositionTable``) adds a registration:
/// what ``Container/add(_:as:key:quietly:)`` does for it beyond storing the registration, kept here so that a
/// container without compositions, which is most of them, runs none of it.
///
/// Under the lock, before the store: a registration a decorated copy replaced is added as that copy (a type
/// forwarded to it resolves the copy); the addition is noted in the table, which may refuse it (see
/// ``CompositionTable/noteAdded(_:key:current:)``); a decorated forward it replaces lets go of what it reached.
/// After the store: the types forwarded to the registration a new decorated copy replaced move onto the copy.
/// After the lock: the descendants that decorate are told, and what was moved out is retired.
extension Container {
    /// ``add(_:as:key:quietly:)`` in a container with compositions; the caller holds `lock`, which this lets go of.
    @inline(never)
    func addComposedLocked<Service, Type>(
        _ entry: ServiceEntry<Service>,
        as type: Type.Type,
        key: consuming ServiceKey,
        quietly: Bool,
        record: RegistrationRecord
    ) {
        // The caller found the table under the lock it still holds.
        let compositions = record.compositions.unsafelyUnwrapped
        let reference = referenceLocked(in: record)
        if let copy = compositions.publishedCopy(of: entry) as? ServiceEntry<Service> {
            // A type forwarded to a registration a decorated copy replaced resolves the copy (see
            // `DecoratedCopies.swift`); added anew, to the latest copy then.
            let awaited = compositions.redirect(entry, to: copy, under: key)
            lock.unlock()
            add(redirecting: entry, to: copy, as: type, key: key, quietly: quietly, awaited: awaited)
            return
        }
        guard noteAddedLocked(entry, key: key, in: compositions, reference: reference) else {
            // A decorated copy of an ancestor's registration older than the one this container holds.
            lock.unlock()
            return
        }
        storeLocked(entry, as: type, key: key, quietly: quietly, record: record, reference: reference, composed: true)
    }

    /// What `add` does under `lock`, in a container with compositions, before it stores `entry` under `key`: notes
    /// the addition (see ``CompositionTable/noteAdded(_:key:current:)``) and, when `entry` replaces a decorated
    /// forward, lets that forward go (see ``leaveForwardLocked(of:replacing:by:reference:)``); the registration the
    /// forward reached stops following its scope in ``retireMovedOut()``, after the lock. Returns false for a
    /// decorated copy of an ancestor's registration older than the one this container holds, which is not stored.
    private func noteAddedLocked<Service>(
        _ entry: ServiceEntry<Service>,
        key: ServiceKey,
        in compositions: CompositionTable,
        reference: ContainerReference
    ) -> Bool {
        let current = services[key]
        guard compositions.noteAdded(entry, key: key, current: current) else { return false }
        if let current, current.isDecoratedForward, current !== entry,
            let reached = leaveForwardLocked(of: key, replacing: current, by: entry, reference: reference)
                as? any ForwardTarget
        {
            compositions.unfollowing.append((reached, current))
        }
        return true
    }

    /// When `copy`, just added, is a decorated copy published in place of a registration (see
    /// ``CompositionTable/expectCopyInPlace(_:of:)``), stores it under the other keys this container holds that
    /// registration (or the copy it takes over from) under: the types forwarded to it, and the key a decorated
    /// forward reaches it under. Every type then resolves the one registration and shares its instances. The
    /// caller holds `lock`; the descendants that decorate are told, as of any registration.
    ///
    /// What it moves out, other than `replaced` (what `copy` replaced under its own key, which `add` retires), is
    /// kept in the composition table for ``retireMovedOut()``, which the caller calls after it lets go of the lock:
    /// usually nothing, but a child's copy that only a forwarded type still held (its parent replaced the service,
    /// then put the copied registration back) is moved out here alone.
    func moveForwardsLocked<Service>(
        to copy: ServiceEntry<Service>,
        replacing replaced: _ServiceEntryBase?,
        reference: ContainerReference
    ) {
        guard let compositions, let (original, previous) = compositions.takeCopyInPlace(copy) else { return }
        let forwarded = services.keys { _, entry in
            entry === original || (entry === previous && entry !== copy)
        }
        var movedOut: [_ServiceEntryBase] = []
        for other in forwarded {
            guard let moved = services.updateValue(copy, forKey: other) else { continue }
            if copy.owner === reference { copy.keyCount += 1 }
            if moved.owner === reference { moved.keyCount -= 1 }
            if moved !== copy, moved !== replaced, !movedOut.contains(where: { $0 === moved }) {
                movedOut.append(moved)
            }
            compositions.noteMoved(to: other)
        }
        // Retired as `add` retires what it replaced: by its owner once no key holds it, else once this registry
        // no longer does.
        for moved in movedOut {
            let owned = moved.owner === reference
            let unused = owned ? moved.keyCount == 0 : !services.contains(moved)
            compositions.movedOut.append((moved, unused: unused, owned: owned))
        }
    }

    /// Retires what ``moveForwardsLocked(to:replacing:reference:)`` and
    /// ``leaveForwardLocked(of:replacing:by:reference:)`` moved out, as `add` retires the registration it replaced,
    /// then stops the decorated forwards `add` replaced following the registrations they reached (see
    /// ``noteAddedLocked(_:key:in:reference:)``); called after the lock is let go: the instances' deinits may call
    /// back into the container.
    func retireMovedOut() {
        lock.lock()
        let movedOut = compositions?.movedOut ?? []
        let unfollowing = compositions?.unfollowing ?? []
        if !movedOut.isEmpty { compositions?.movedOut = [] }
        if !unfollowing.isEmpty { compositions?.unfollowing = [] }
        lock.unlock()
        if !movedOut.isEmpty {
            keepRetired(movedOut.compactMap { $0.unused ? $0.entry : nil })
        }
        for (entry, unused, owned) in movedOut {
            if unused, owned { entry.retire() }
            entry.discardInstanceAndDependents(includingOwn: unused && owned)
        }
        for (target, follower) in unfollowing {
            target.unfollow(follower, restoring: nil)
        }
    }
}
