/// The builds of one async graph's graph-scoped instances of async factories, made or being made, by
/// registration; a build's outcome holds its instance once made, and its slot says whether that instance is still
/// to go into its registration's storage (see ``AsyncGraph/publish()``).
///
/// A graph holds a handful of them: a short list searched in order costs less than hashing each identity,
/// which every claim, build and completion would do. Past a few dozen, a dictionary indexes the list, so a wide
/// graph stays linear. Guarded, with its graph, by ``AsyncBuilds/lock``.
struct AsyncGraphSlots {
    private var slots: [Slot] = []
    /// The position of each registration's slot, once the list is long.
    private var index: [ObjectIdentifier: Int]?

    private static let longest = 32
    /// The room the first slot makes for a few: a graph usually has several, and growing one by one allocates
    /// at each step.
    private static let first = 4

    /// The build of the registration `id`.
    subscript(id: ObjectIdentifier) -> AsyncBuild? {
        position(of: id).map { slots[$0].build }
    }

    /// Adds the slot of `entry`, which has none, with its `build`; `publishes` says whether the instance it makes
    /// goes into the registration's storage when a synchronous part of the graph starts.
    mutating func insert(_ build: AsyncBuild, for entry: _ServiceEntryBase, publishes: Bool) {
        let id = ObjectIdentifier(entry)
        if slots.isEmpty { slots.reserveCapacity(Self.first) }
        slots.append(Slot(id: id, entry: .passUnretained(entry), build: build, publishes: publishes))
        if index != nil {
            index?[id] = slots.count - 1
        } else if slots.count > Self.longest {
            index = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1.id, $0) })
        }
    }

    /// Removes the slot of the registration `id`, if there is one.
    mutating func remove(_ id: ObjectIdentifier) {
        if let position = position(of: id) { remove(at: position) }
    }

    /// The instances made since the last call whose slots publish them, with their registrations: each is
    /// returned once.
    mutating func takeUnpublished() -> [(entry: _ServiceEntryBase, made: Made)] {
        var taken: [(entry: _ServiceEntryBase, made: Made)] = []
        for position in slots.indices where slots[position].publishes {
            guard let made = slots[position].build.made else { continue }
            slots[position].publishes = false
            taken.append((slots[position].entry.takeUnretainedValue(), made))
        }
        return taken
    }

    /// Whether there is no slot.
    var isEmpty: Bool { slots.isEmpty }

    /// Notes, in each slot, whether its build can be reused by the graph's next resolve: nothing else refers to it
    /// (so it has finished: a build in flight is its builder's) and nothing waits for it. Call with
    /// ``AsyncBuilds/lock`` held, before the slots are taken out of the graph: a build no other task refers to
    /// then is one no other task touches again.
    mutating func markSpares() {
        for position in slots.indices {
            let unique = isKnownUniquelyReferenced(&slots[position].build)
            let build = slots[position].build
            slots[position].spare = unique && build.waiters.isEmpty && build.waitsFor.isEmpty
        }
    }

    /// Forgets every slot, keeping the list's storage for the graph's next resolve; the builds marked as spares
    /// (see ``markSpares()``) let go of their instances and move to `spares`. Call without the lock, on slots taken
    /// out of their graph: releasing an instance may run its deinit, user code.
    mutating func empty(sparing spares: inout [AsyncBuild]) {
        index = nil
        // Last slot first, each moved out rather than copied: the next resolve's builds, taking the last spare
        // first, then take them in the order in which this one made them, usually for the same keys.
        if spares.isEmpty, !slots.isEmpty { spares.reserveCapacity(Self.first) }
        while let slot = slots.popLast() {
            guard slot.spare else { continue }
            let build = slot.build
            build.clear()
            spares.append(build)
        }
    }

    private func position(of id: ObjectIdentifier) -> Int? {
        if let index { return index[id] }
        return slots.firstIndex { $0.id == id }
    }

    /// Removes the slot at `position`, moving the last one into its place.
    private mutating func remove(at position: Int) {
        let removed = slots[position].id
        let last = slots.count - 1
        if position != last {
            slots[position] = slots[last]
            index?[slots[position].id] = position
        }
        slots.removeLast()
        index?[removed] = nil
    }

    /// One registration's build. A struct rather than a tuple: an array of tuples is destroyed element by element
    /// through the tuple's generic value witnesses. The registration is not retained: the graph's activity record
    /// keeps every registration it found until the graph ends.
    private struct Slot {
        let id: ObjectIdentifier
        let entry: EntryReference
        var build: AsyncBuild
        /// Whether the instance, once made, is still to go into the registration's storage.
        var publishes: Bool
        /// Whether the build goes to the graph's spares when the graph ends (see ``markSpares()``).
        var spare = false
    }
}

/// The builds one async build waits for (see ``AsyncBuild/waitsFor``): the first kept inline, the others in an
/// array. A build usually waits for one at a time (the dependency its factory is resolving), so most builds never
/// allocate the array; an array alone would cost each build with a dependency an allocation and its release.
/// Guarded, with its build, by ``AsyncBuilds/lock``.
struct BuildList {
    private var first: AsyncBuild?
    private var others: [AsyncBuild] = []

    /// Whether the list holds no build.
    var isEmpty: Bool { first == nil && others.isEmpty }

    /// The builds, in no particular order.
    var all: [AsyncBuild] {
        guard let first else { return others }
        return [first] + others
    }

    /// Adds `build`.
    mutating func append(_ build: AsyncBuild) {
        if first == nil {
            first = build
        } else {
            others.append(build)
        }
    }

    /// Removes one occurrence of `build`, if the list holds it.
    mutating func remove(_ build: AsyncBuild) {
        if first === build {
            first = others.popLast()
        } else if let index = others.firstIndex(where: { $0 === build }) {
            others.remove(at: index)
        }
    }
}
