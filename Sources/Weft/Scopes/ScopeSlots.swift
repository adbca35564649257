/// One scope's instance of one `.scoped` registration: the instance, the claim to build it, and the count of its
/// registration's discards it was made under. The registration stays what the user configured; the scope keeps a
/// slot for each `.scoped` registration it resolves (see ``ScopeSlots``), made on first use, inside the scope
/// itself (a unit of work usually resolves one or a few: no allocation of their own).
///
/// Guarded by the scope's lock, which also guards what the scope keeps to tear down: storing an instance, handing
/// it over for teardown and letting go of the claim are one hold of one lock. No user code runs under it (an
/// instance is released, and its teardown found, outside).
///
/// The instance is kept as one retained object, as its registration knows how (see `ServiceEntry+Instances.swift`):
/// the instance itself for a class, a typed box around it for any other type. Releasing it needs no type, so the
/// scope does it alone; reading it, typed or erased, goes through the registration, during a resolve.
struct SlotState {
    /// The registration whose instance this is. Not retained (retaining a registration, which its dependencies
    /// refer to weakly, goes through its side table): it is used only by resolves that found it, which keep it
    /// alive (see `Container+Retirement.swift`), never when the scope releases the instance.
    /// Nil only in the placeholder a scope keeps for its first slot before it makes one (see ``ScopeSlots``).
    private let registration: Unmanaged<_ServiceEntryBase>?
    /// ``original``'s ``_ServiceEntryBase/serial``, by which the scope finds the slot: unlike its address, never
    /// reused by a later registration.
    let serial: UInt64
    /// Who builds the instance now (see ``BuildClaimState``).
    var claimState = BuildClaimState()
    /// The instance, a retained object (see ``ServiceEntry/slotBits(of:)``); nil when none.
    var bits: UnsafeMutableRawPointer?
    /// The registration's discard count when this slot last looked (see ``refresh(current:)``).
    var discards: UInt64
    /// The slot as the engine's general paths hold it (see ``ScopeSlot``), made on first need.
    var handle: ScopeSlot?

    init(original: _ServiceEntryBase, discards: UInt64) {
        registration = .passUnretained(original)
        serial = original.serial
        self.discards = discards
    }

    /// The placeholder for a slot not made yet: no registration's (serial 0), no instance.
    fileprivate init() {
        registration = nil
        serial = 0
        discards = 0
    }

    /// The registration whose instance this is (see ``registration``).
    var original: _ServiceEntryBase { registration.unsafelyUnwrapped.takeUnretainedValue() }

    /// Brings the slot up to date with its registration's discard count `current`, read just before the caller
    /// took the lock: when the registration discarded instances since (it was reset, or something its instance was
    /// made with was replaced), the instance is stale. Returns it, for the caller to release after the lock; a build
    /// in flight is marked stale too.
    @inline(__always)
    mutating func refresh(current: UInt64) -> UnsafeMutableRawPointer? {
        guard current != discards else { return nil }
        discards = current
        claimState.markStale()
        defer { bits = nil }
        return bits
    }

    /// Releases `bits`, an instance taken out of a slot, outside every lock (a deinit may call back into the
    /// container).
    @inline(__always)
    static func release(_ bits: UnsafeMutableRawPointer?) {
        guard let bits else { return }
        Unmanaged<AnyObject>.fromOpaque(bits).release()
    }
}

/// A scope's slots, by registration: the first kept inline, the others in a list searched in order while it is
/// short, indexed by a dictionary once it is long (an object of its own, made for a second slot, so that a scope
/// with one initialises and releases one field for them). A slot is named by its position, which never changes
/// (slots are only added, until the scope is released). Guarded by the scope's lock.
struct ScopeSlots {
    /// The serial of the first slot's registration; 0 (no registration's) while there is none.
    private var firstSerial: UInt64 = 0
    /// The first slot; a placeholder while there is none. Not an optional: destroying an optional struct goes
    /// through its value witnesses, and every scope destroys its first slot when it is released.
    private var first = SlotState()
    private var more: MoreSlots?

    /// The position of the slot of the registration whose serial is `serial`, if one was made. Mutating though it
    /// changes nothing: called on the scope's stored record in place, where a non-mutating call would first copy
    /// the record out of the scope.
    @inline(__always)
    mutating func position(of serial: UInt64) -> Int? {
        if firstSerial == serial { return 0 }
        return more?.position(of: serial)
    }

    /// Adds `slot`, for a registration that has none yet; returns its position.
    @inline(__always)
    mutating func add(_ slot: SlotState) -> Int {
        guard firstSerial != 0 else {
            firstSerial = slot.serial
            first = slot
            return 0
        }
        if more == nil { more = MoreSlots() }
        return more.unsafelyUnwrapped.add(slot)
    }

    /// Calls `body` with the slot at `position`, in place.
    @inline(__always)
    mutating func update<R>(at position: Int, _ body: (inout SlotState) -> R) -> R {
        if position == 0 { return body(&first) }
        return body(&more.unsafelyUnwrapped.slots[position - 1])
    }

    /// Takes the instance out of every slot, for the caller to release after the lock (the scope ends); a build
    /// in flight is not kept. The first slot's is returned alone, the others' in a list only when there are others.
    mutating func takeInstances() -> (first: UnsafeMutableRawPointer?, others: [UnsafeMutableRawPointer]) {
        var taken: (first: UnsafeMutableRawPointer?, others: [UnsafeMutableRawPointer]) = (nil, [])
        if firstSerial != 0 {
            first.claimState.markStale()
            taken.first = first.bits
            first.bits = nil
        }
        guard let more else { return taken }
        for position in more.slots.indices {
            more.slots[position].claimState.markStale()
            if let bits = more.slots[position].bits { taken.others.append(bits) }
            more.slots[position].bits = nil
        }
        return taken
    }

    /// Releases the instances still kept (the scope is released without having ended).
    mutating func releaseInstances() {
        if firstSerial != 0 { SlotState.release(first.bits) }
        guard let more else { return }
        for slot in more.slots { SlotState.release(slot.bits) }
    }
}

/// A scope's slots after the first (see ``ScopeSlots``). Guarded by the scope's lock, which already excludes
/// overlapping access: unchecked, so that using them pays no dynamic exclusivity check.
final class MoreSlots {
    @exclusivity(unchecked) var slots: [SlotState] = []
    @exclusivity(unchecked) private var index: [UInt64: Int]?

    private static let longest = 16

    /// The position (in the scope's ``ScopeSlots``) of the slot of the registration whose serial is `serial`.
    func position(of serial: UInt64) -> Int? {
        if let index { return index[serial].map { $0 + 1 } }
        return slots.firstIndex { $0.serial == serial }.map { $0 + 1 }
    }

    /// Adds `slot`; returns its position in the scope's ``ScopeSlots``.
    func add(_ slot: SlotState) -> Int {
        slots.append(slot)
        if index != nil {
            index?[slot.serial] = slots.count - 1
        } else if slots.count > Self.longest {
            index = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1.serial, $0) })
        }
        return slots.count
    }
}
