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
