import WeftAtomics

/// The registrations a container replaced or removed, each with the epoch it was retired at, waiting to be
/// released. Guarded by the container's lock.
///
/// Resolves refer to registrations without retaining them, so a retired registration is kept until no resolve
/// that could have found it still runs: every thread and async graph inside the engine publishes the epoch it
/// entered at (see ``ResolutionState/enterEngine()`` and `weft_activity_enter`), and a registration retired at
/// epoch E is released once none is inside at E or earlier. The list is checked when it has grown by a quarter
/// (at least ``firstCheck``) since the last check: a check scans the list, so keeping it costs amortised
/// constant time per retirement, and a check that finds a resolve still inside (a thread preempted in the
/// middle of one) is retried soon, so the list stays within a quarter above what resolves still use.
struct RetiredRegistrations {
    private var entries: [(entry: _ServiceEntryBase, epoch: UInt64)] = []
    /// The length at which the next check is due.
    private var checkAt = RetiredRegistrations.firstCheck

    /// The fewest retired registrations worth a check (each check costs a process-wide barrier).
    static let firstCheck = 64

    /// How many registrations are kept.
    var count: Int { entries.count }

    /// Keeps `retired`, retired at `epoch`; returns whether a check is due.
    mutating func append(_ retired: [_ServiceEntryBase], epoch: UInt64) -> Bool {
        for entry in retired { entries.append((entry, epoch)) }
        return entries.count >= checkAt
    }

    /// Takes out the registrations retired before `oldest`, the oldest epoch a resolve is inside the engine at.
    mutating func takeUnused(before oldest: UInt64) -> [_ServiceEntryBase] {
        var unused: [_ServiceEntryBase] = []
        entries.removeAll { retired in
            guard retired.epoch < oldest else { return false }
            unused.append(retired.entry)
            return true
        }
        checkAt = entries.count + max(Self.firstCheck, entries.count / 4)
        return unused
    }
}

extension Container {
    /// Keeps `removed`, which are out of the registry (and the registry version bumped), until no resolve can
    /// use them; releases the ones no resolve can use any more when a check is due.
    func keepRetired(_ removed: [_ServiceEntryBase]) {
        guard !removed.isEmpty else { return }
        // After the registry change: a resolve that enters the engine at a later epoch cannot find them.
        let epoch = weft_retire_epoch()
        let due = lock.withLock { registrationRecordLocked().retired.append(removed, epoch: epoch) }
        if due { releaseRetired() }
    }

    /// Releases the retired registrations that no resolve can still be using.
    func releaseRetired() {
        let oldest = weft_oldest_activity()
        let unused = lock.withLock { registrationRecord?.retired.takeUnused(before: oldest) }
        // Released here, outside the lock: a factory's captures may have deinits that use the container.
        _ = unused
    }

    /// How many replaced or removed registrations the container still keeps; for tests.
    var retiredCount: Int {
        lock.withLock { registrationRecord?.retired.count ?? 0 }
    }
}

extension Container {
    /// Removes every registration of this container (not of its parent), releasing the instances they kept.
    ///
    /// Collections and their elements go with the other registrations. Decorators and behaviors stay: a
    /// decorator belongs to the container by type and name, and wraps what is registered under them next.
    public func removeAll() {
        let (removed, reference) = lock.withLock {
            if let compositions {
                compositions.removeCollections()
                compositions.forgetPublishedCopies()
                // The descendants that decorate what was removed follow what they now inherit.
                if compositions.tellsDescendants {
                    for key in services.dictionary.keys { compositions.noteRemoved(key) }
                }
            }
            return (services.removeAll(), registrationRecord?.sharedReference)
        }
        weft_registry_changed()
        tellDescendants()
        // Each once: a registration stored under several keys is listed once per key. One forwarded here from
        // another container may still be in that one's registry.
        var seen: Set<ObjectIdentifier> = []
        let unique = removed.filter { seen.insert(ObjectIdentifier($0)).inserted }
        lock.withLock { for entry in unique where entry.owner === reference { entry.keyCount = 0 } }
        release(unique, owned: { $0.owner === reference })
        // Decorators stay: those of services an ancestor registers apply to them again.
        redecorateInherited()
    }

    /// Removes the decorated copy (or decorated forward) that this container holds under `key` of the ancestor's
    /// registration whose serial is `source`, which no ancestor has any more: the key then resolves as it would
    /// without the decorator, through what the ancestors have (nothing: the not-registered error). Nothing is
    /// removed when the copy is already of another registration.
    func removeInheritedCopy(under key: ServiceKey, of source: UInt64) {
        let (removed, unused, reference): ([_ServiceEntryBase], [Bool], ContainerReference?) = lock.withLock {
            guard let compositions, compositions.inheritedSource(of: key) == source,
                let copy = services.removeValue(forKey: key)
            else { return ([], [], nil) }
            compositions.noteRemoved(key)
            var removed = [copy]
            // A decorated forward reaches the ancestor's registration under a key of its own, which goes with it.
            if copy.isDecoratedForward, let target = services.removeValue(forKey: forwardedKey(of: key, to: nil)) {
                compositions.placements.noteWritten(under: forwardedKey(of: key, to: nil))
                removed.append(target)
            }
            let reference = registrationRecord?.sharedReference
            let unused = removed.map { entry in
                guard entry.owner === reference else { return !services.contains(entry) }
                entry.keyCount -= 1
                return entry.keyCount == 0
            }
            return (removed, unused, reference)
        }
        guard !removed.isEmpty else { return }
        weft_registry_changed()
        tellDescendants()
        // A decorated forward removed no longer follows the scope of the registration it reached.
        if removed.count == 2, let target = removed[1] as? any ForwardTarget {
            target.unfollow(removed[0], restoring: nil)
        }
        let gone = zip(removed, unused).filter { $0.1 }.map { $0.0 }
        release(gone, owned: { $0.owner === reference })
    }

    /// Keeps `removed`, out of the registry, until no resolve can use them, and discards their instances; those
    /// `owned` by this container are retired. Called outside the lock: a deinit may call back into the container.
    private func release(_ removed: [_ServiceEntryBase], owned: (_ServiceEntryBase) -> Bool) {
        // Kept until no resolve can use them, whoever owns them: this registry's reference may be the last.
        keepRetired(removed)
        // A registration forwarded here from another container stays that container's, with its instance (what
        // was made with it still goes).
        for entry in removed {
            let isOwned = owned(entry)
            if isOwned { entry.retire() }
            entry.discardInstanceAndDependents(includingOwn: isOwned)
        }
    }
}
