import WeftAtomics

/// What a container checks as it adds a registration made from what it read earlier, when another thread may have
/// changed that meanwhile: a decorated copy of its own registration, a decorated forward, the registration a
/// decorated forward reaches. Each is published only in place of what its maker read (see
/// ``CompositionTable/noteAdded(_:key:current:)``); otherwise it is refused, and its maker, told so, reads again.
/// `decorate`, `forward` and `register` then never undo one another whichever thread comes last. Kept in the
/// ``CompositionTable``, under its container's lock.
struct Placements {
    /// A registration about to be added under a key by the calling thread (the same registration may be added
    /// under several keys; and under one key by several threads at once, each in place of what it read: a
    /// decorated forward's target, which every thread that forwards or decorates the type writes).
    struct Placement: Hashable {
        let entry: ObjectIdentifier
        let key: ServiceKey
        let thread: UInt

        init(_ entry: _ServiceEntryBase, _ key: ServiceKey) {
            (self.entry, self.key, thread) = (ObjectIdentifier(entry), key, weft_thread_token())
        }
    }

    /// What each registration about to be added is to replace (nil: nothing).
    private var expected: [Placement: _ServiceEntryBase?] = [:]
    /// The registrations about to be added whose maker asks whether they were refused, with that verdict.
    private var verdicts: [Placement: Bool] = [:]
    /// How many times each key a decorated forward reaches its target by (see ``ForwardedOption``) was written:
    /// added to, moved onto, or removed. The registration forwarded to is shared, so the same one may be written
    /// there again by another thread; only the count tells that it was.
    private var forwardedWrites: [ServiceKey: UInt64] = [:]
    /// The registrations about to be added only while their key's ``forwardedWrites`` is still this count.
    private var expectedWrites: [Placement: UInt64] = [:]
    /// How many of the container's decorators of their key the decorated copies it published in place of what it
    /// holds carry, by the copy's serial (see ``applied(in:own:)``).
    private var appliedDecorators: [UInt64: Int] = [:]

    /// Notes that `entry`, about to be added under `key`, is to be added only in place of `current`, and that its
    /// maker asks with ``takeRefused(_:under:)`` whether it was.
    mutating func expect(_ entry: _ServiceEntryBase, under key: ServiceKey, inPlaceOf current: _ServiceEntryBase?) {
        let placement = Placement(entry, key)
        expected[placement] = .some(current)
        verdicts[placement] = false
    }

    /// Notes that `entry`, about to be added under `key`, is to be added only while the key's writes (see
    /// ``writes(under:)``) are `writes`, and that its maker asks with ``takeRefused(_:under:)`` whether it was.
    mutating func expect(_ entry: _ServiceEntryBase, under key: ServiceKey, atWrites writes: UInt64) {
        let placement = Placement(entry, key)
        expectedWrites[placement] = writes
        verdicts[placement] = false
    }

    /// How many times `key`, a key with a ``ForwardedOption``, was written.
    func writes(under key: ServiceKey) -> UInt64 {
        forwardedWrites[key] ?? 0
    }

    /// Notes that what `key` holds changed, when it is a key a decorated forward reaches its target by.
    mutating func noteWritten(under key: ServiceKey) {
        guard key.hasOption, key.option is ForwardedOption else { return }
        forwardedWrites[key, default: 0] += 1
    }

    /// Notes that every key was emptied (``Container/removeAll()``).
    mutating func noteAllRemoved() {
        for key in forwardedWrites.keys { forwardedWrites[key, default: 0] += 1 }
    }

    /// Notes that the maker of `entry`, about to be added under `key` with no condition, asks whether it was refused.
    mutating func awaitVerdict(on entry: _ServiceEntryBase, under key: ServiceKey) {
        verdicts[Placement(entry, key)] = false
    }

    /// Whether `entry`, added under `key`, was refused; forgets the verdict.
    mutating func takeRefused(_ entry: _ServiceEntryBase, under key: ServiceKey) -> Bool {
        verdicts.removeValue(forKey: Placement(entry, key)) ?? false
    }

    /// Whether `entry` may be added under `key`, which holds `current`: false when it was expected in place of
    /// something else. Forgets the expectation.
    mutating func admits(_ entry: _ServiceEntryBase, under key: ServiceKey, current: _ServiceEntryBase?) -> Bool {
        if !expectedWrites.isEmpty, let writes = expectedWrites.removeValue(forKey: Placement(entry, key)),
            writes != self.writes(under: key)
        {
            expected[Placement(entry, key)] = nil
            return false
        }
        guard !expected.isEmpty, let wanted = expected.removeValue(forKey: Placement(entry, key)) else { return true }
        return wanted === current
    }

    /// Notes that `entry` is not added under `key`.
    mutating func refuse(_ entry: _ServiceEntryBase, under key: ServiceKey) {
        let placement = Placement(entry, key)
        if verdicts[placement] != nil { verdicts[placement] = true }
        if !appliedDecorators.isEmpty { appliedDecorators[entry.serial] = nil }
    }

    /// `entry`, about to be added under `key`, is added as `copy` instead (the decorated copy that replaced it):
    /// what was expected of it is expected of the copy. Returns whether its maker awaits a verdict, to be moved
    /// back with ``restoreVerdict(of:from:under:)`` once the copy is added.
    mutating func redirect(_ entry: _ServiceEntryBase, to copy: _ServiceEntryBase, under key: ServiceKey) -> Bool {
        guard !verdicts.isEmpty else { return false }
        let placement = Placement(entry, key)
        if let wanted = expected.removeValue(forKey: placement) { expected[Placement(copy, key)] = .some(wanted) }
        if let writes = expectedWrites.removeValue(forKey: placement) { expectedWrites[Placement(copy, key)] = writes }
        guard verdicts.removeValue(forKey: placement) != nil else { return false }
        verdicts[Placement(copy, key)] = false
        return true
    }

    /// Gives the verdict on `copy`, added under `key` in place of `entry` (see ``redirect(_:to:under:)``), to
    /// `entry`'s maker.
    mutating func restoreVerdict(of entry: _ServiceEntryBase, from copy: _ServiceEntryBase, under key: ServiceKey) {
        verdicts[Placement(entry, key)] = verdicts.removeValue(forKey: Placement(copy, key)) ?? false
    }

    /// Notes that `copy`, a decorated copy about to be published, carries `applied` of the container's decorators.
    mutating func setApplied(_ applied: Int, in copy: _ServiceEntryBase) {
        appliedDecorators[copy.serial] = applied
    }

    /// How many of the container's decorators of its key wrap `entry`, which the container holds: those a copy
    /// was published with, those a registration of its own was wrapped in as it was added, none for another
    /// container's registration forwarded here.
    func applied(in entry: _ServiceEntryBase, own: Bool) -> Int {
        appliedDecorators[entry.serial] ?? (own ? entry.decoratorCount : 0)
    }

    /// Forgets the decorated copies' counts (``Container/removeAll()`` removed them).
    mutating func forgetApplied() {
        appliedDecorators = [:]
    }
}

/// Adding a registration only in place of what was read (see ``Placements``).
extension Container {
    /// Adds `entry` under `key`; when `checked`, only in place of `current` and, with `writes`, only while the
    /// key's writes are that count (see ``Placements/writes(under:)``). Returns whether it was added.
    func add(
        _ entry: any ForwardTarget,
        under key: ServiceKey,
        inPlaceOf current: _ServiceEntryBase?,
        atWrites writes: UInt64? = nil,
        if checked: Bool
    ) -> Bool {
        let expected: Void? = lock.withLock {
            guard checked, let compositions else { return nil }
            compositions.placements.expect(entry, under: key, inPlaceOf: current)
            if let writes { compositions.placements.expect(entry, under: key, atWrites: writes) }
        }
        guard expected != nil else {
            entry.add(to: self, under: key)
            return true
        }
        entry.add(to: self, under: key)
        return !lock.withLock { compositions?.placements.takeRefused(entry, under: key) ?? false }
    }

    /// Adds `copy` in place of `entry`, which a decorated copy replaced (see ``add(_:as:key:quietly:)``), and, when
    /// `entry`'s maker awaits a verdict (see ``Placements``), gives it the verdict on `copy`.
    func add<Service, Type>(
        redirecting entry: ServiceEntry<Service>,
        to copy: ServiceEntry<Service>,
        as type: Type.Type,
        key: ServiceKey,
        quietly: Bool,
        awaited: Bool
    ) {
        add(copy, as: type, key: key, quietly: quietly)
        guard awaited else { return }
        lock.withLock { compositions?.placements.restoreVerdict(of: entry, from: copy, under: key) }
    }
}
