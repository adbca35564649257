/// The shared instances (registrations' or scopes' slots) one thread's resolution claimed and has not released yet (see
/// ``ResolutionState/claims``).
///
/// Builds release their claims last-in first-out, and deferred `initCompleted` callbacks, which run oldest
/// first, release theirs first-in first-out; so a release looks from both ends at once, and a released slot is
/// cleared in place rather than closed up. Either order then costs constant time per claim, where removing
/// from an array would move every later claim and make a wide graph quadratic.
struct ClaimList {
    /// The claims in the order they were made; nil where one was released.
    private var slots: [(any InstanceHolder)?] = []
    /// Every slot before it is nil.
    private var start = 0
    /// How many claims are held.
    private(set) var count = 0

    /// Whether no claim is held.
    var isEmpty: Bool { count == 0 }

    /// Records a claim on `entry`.
    mutating func append(_ entry: any InstanceHolder) {
        slots.append(entry)
        count += 1
    }

    /// The claimed registrations, by identity.
    var identifiers: Set<ObjectIdentifier> {
        Set(slots[start...].compactMap { $0.map { ObjectIdentifier($0) } })
    }

    /// Forgets the latest claim on `entry`, if any.
    mutating func remove(_ entry: any InstanceHolder) {
        var low = start
        var high = slots.count - 1
        var found: Int?
        while low <= high {
            if slots[high] === entry {
                found = high
                break
            }
            if slots[low] === entry {
                found = low
                break
            }
            low += 1
            high -= 1
        }
        guard let found else { return }
        slots[found] = nil
        count -= 1
        while let last = slots.last, last == nil { slots.removeLast() }
        while start < slots.count, slots[start] == nil { start += 1 }
        if slots.isEmpty {
            start = 0
        } else if start > 32, start * 2 > slots.count {
            slots.removeFirst(start)
            start = 0
        }
    }

    /// Takes every claim out, oldest first.
    mutating func removeAll() -> [any InstanceHolder] {
        let taken = slots[start...].compactMap { $0 }
        slots.removeAll(keepingCapacity: true)
        start = 0
        count = 0
        return taken
    }
}
