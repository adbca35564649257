/// Reusing a scope's copy of a `.scoped` registration once its scope is gone: a unit of work makes a copy of each
/// `.scoped` registration it uses, and a server makes thousands of scopes a second. A copy whose scope was
/// released goes back to its original, emptied; the next scope that needs one takes it.
///
/// A spare is referred to by nothing but its original's list: its scope released it, no resolve runs through
/// a released scope, and the registry and lookup caches never keep a plain scope's copy (a scope with
/// registrations of its own, whose lookups may be cached, makes the caches look again when it ends).
///
/// A spare holds its original (every copy does) and the original holds the spare: the container the released
/// scope was made from lists the registration when it first keeps a spare, and releases its spares when that
/// container is released (see ``Container/listSpareOwner(_:)``); retiring or reconfiguring it releases them too.
///
/// Spares are handled through the base class: naming `ServiceEntry<Service>` would look up its metadata.
extension ServiceEntry {
    /// How many spare copies a registration keeps: as many as scopes that end at about the same time reuse.
    static var mostSpares: Int { 8 }

    /// A spare copy made ready for `scope`, or nil when there is none.
    func takeSpare(for scope: Container) -> _ServiceEntryBase? {
        lock.lock()
        guard let spare = spares else {
            lock.unlock()
            return nil
        }
        // Moved, not copied: the spare's link is emptied as the list takes it back.
        spares = spare.nextSpare.take()
        spareCount -= 1
        // The original's count now, as a new copy takes it (see `dropIfOriginalDiscarded()`).
        spare.discards = discards
        lock.unlock()
        spare.copyingScope = scope
        return spare
    }

    /// Empties this copy, whose scope is gone: nobody else refers to it, so its fields are emptied without its
    /// lock. The instance is released here, outside every lock, as the copy's deinit would.
    func emptyForReuse() -> Bool {
        let claimed = buildClaim.isHeld
        let typed = typedShared
        typedShared = nil
        copyingScope = nil
        if spareSlot == nil {
            spareSlot = releasedSlot
        } else {
            releasedSlot?.deallocate()
        }
        releasedSlot = nil
        Self.free(typed)
        return !claimed
    }

    /// Releases the instance of this copy, whose scope ends, as `discardInstance()` does, keeping the memory of
    /// its typed slot in ``releasedSlot`` (unless a slot is kept there already) for the copy's next scope.
    func endScoped() {
        lock.lock()
        // As `discardInstance()` does: an instance still being built for the ending scope is not kept.
        buildClaim.markStale()
        let typed = typedShared
        typedShared = nil
        let keep = typed != nil && releasedSlot == nil
        if keep { releasedSlot = typed }
        lock.unlock()
        // Released outside the lock: a deinit may call back into the container.
        guard let typed else { return }
        Self.empty(typed)
        if !keep { typed.deallocate() }
    }

    /// Keeps `copy`, whose scope is gone, as a spare unless enough are kept, the registration was retired or
    /// configured anew since the copy was made, or the copy cannot be reused. The first spare lists this
    /// registration with the parent of `scope` (the released scope), which releases the spares when it is
    /// released. The parent is read only then: it has a side table, which makes retaining it slow.
    func keepSpare(_ copy: consuming _ServiceEntryBase, from scope: Container) {
        guard copy.emptiedForReuse() else { return }
        lock.lock()
        guard !retired, spareCount < Self.mostSpares, copy.configurationChanges == configurationChanges else {
            lock.unlock()
            // Released here, outside the lock, if nothing else holds it.
            withExtendedLifetime(copy) {}
            return
        }
        // The list's head moved into the copy's link (empty: a copy in use is on no list), not copied; the copy
        // moved into the list.
        assert(copy.nextSpare == nil, "Weft: a scope's copy in use is on a list of spares")
        swap(&copy.nextSpare, &spares)
        spares = consume copy
        spareCount += 1
        let list = !listedForSpares
        listedForSpares = true
        lock.unlock()
        if list { scope.parent?.listSpareOwner(self) }
    }

    /// Takes every spare out, for the caller to release after letting go of the lock (the caller holds it).
    func takeSparesLocked() -> _ServiceEntryBase? {
        defer {
            spares = nil
            spareCount = 0
        }
        return spares
    }
}
