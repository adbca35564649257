import Testing
import Weft

/// Per-resolve bookkeeping does not grow (Swinject issue #510): graph records are dropped when their graph ends,
/// however many graphs a container resolves.
extension MemoryTests {
    /// A million resolves of one graph-scoped service take seconds in a debug build; a tenth of that under a
    /// sanitizer, where the loop would hold one of the few threads every async test needs for long.
    static let manyResolves = lighterUnderSanitizer(1_000_000)
    /// A graph of two services with an `initCompleted` callback takes about three times as long per resolve
    /// (a million took 16–18 s in a debug build), so this shape runs 200,000 times (a tenth under a sanitizer).
    static let graphResolvesWithCallbacks = lighterUnderSanitizer(200_000)

    @Test func aMillionResolvesOfAGraphScopedServiceReleaseEveryInstanceAndKeepNoPerGraphRecords() throws {
        let factoryCalls = Counter()
        let deinits = Counter()
        let container = container(scope: .graph, factoryCalls: factoryCalls, deinits: deinits)

        for _ in 0..<Self.manyResolves {
            _ = container.resolve(Tracked.self)
        }

        #expect(factoryCalls.value == Self.manyResolves)
        #expect(deinits.value == Self.manyResolves)
        #expect(try perGraphRecords(reachableFrom: container) <= 1)
    }

    /// A graph that nothing outside the resolve can name (no `Lazy`, `GraphIdentifier` or `withObjectGraph`)
    /// keeps its graph-scoped instances in the resolve alone: the registration's storage is not touched.
    @Test func aPlainResolveLeavesNoPerGraphRecordBehind() throws {
        let deinits = Counter()
        let container = container(scope: .graph, deinits: deinits)
        let kept = try container.require(Tracked.self)

        #expect(try perGraphRecords(reachableFrom: container) == 0)
        _ = kept
    }

    @Test func graphsWithDependenciesAndCallbacksReleaseEveryInstanceAndKeepNoPerGraphRecords() throws {
        let factoryCalls = Counter()
        let deinits = Counter()
        let holderDeinits = Counter()
        let callbacks = Counter()
        let container = container(
            scope: .graph,
            factoryCalls: factoryCalls,
            deinits: deinits,
            holderDeinits: holderDeinits
        )
        container.register(Holder.self) { r in
            Holder(first: try r.require(Tracked.self), second: try r.require(Tracked.self), deinits: holderDeinits)
        }
        .initCompleted { _, _ in callbacks.increment() }

        for _ in 0..<Self.graphResolvesWithCallbacks {
            _ = container.resolve(Holder.self)
        }

        #expect(factoryCalls.value == Self.graphResolvesWithCallbacks)
        #expect(deinits.value == Self.graphResolvesWithCallbacks)
        #expect(holderDeinits.value == Self.graphResolvesWithCallbacks)
        #expect(callbacks.value == Self.graphResolvesWithCallbacks)
        #expect(try perGraphRecords(reachableFrom: container) <= 2)
    }

    /// A graph-scoped instance that only its graph held is released when the resolve ends; its deinit may
    /// resolve another graph on the same thread, whose own graph-scoped instances are shared and released
    /// as usual.
    @Test func aDeinitThatResolvesWhenItsGraphEndsGetsACorrectGraphOfItsOwn() throws {
        final class Probe {
            let onDeinit: () -> Void
            init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class Root {}
        let deinits = Counter()
        let container = container(scope: .graph, deinits: deinits)
        let sharedInNestedGraphs = Counter()
        container.register(Holder.self) { r in
            Holder(first: try r.require(Tracked.self), second: try r.require(Tracked.self), deinits: Counter())
        }
        container.register(Probe.self) { [unowned container] _ in
            Probe {
                // Runs while the outer resolve ends: a new top-level graph on this thread.
                if let holder = container.resolve(Holder.self), holder.first === holder.second {
                    sharedInNestedGraphs.increment()
                }
            }
        }
        container.register(Root.self) { r in
            _ = try r.require(Probe.self)  // held by the graph alone
            _ = try r.require(Tracked.self)
            return Root()
        }

        for _ in 0..<100 {
            _ = try container.require(Root.self)
        }

        #expect(sharedInNestedGraphs.value == 100)
        // One Tracked per outer graph and one per nested graph, all released.
        #expect(deinits.value == 200)
    }

    /// The deinits of graph-scoped instances that only their graph held run while the graph's other instances
    /// are still being released; each resolves a graph of its own, larger than the graph's records fit in at
    /// once, whose last instance's deinit resolves yet another. Every graph shares its instances, and every
    /// instance of every graph is released.
    @Test func deinitsThatResolveLargeGraphsWhileTheirGraphEndsEachGetACorrectGraph() throws {
        final class Probe {
            let onDeinit: () -> Void
            init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class Wide {
            let pairs: [(Tracked, Tracked)]
            init(pairs: [(Tracked, Tracked)]) { self.pairs = pairs }
        }
        final class Root {}
        let width = 100
        let levels = 3
        let deinits = Counter()
        let sharingGraphs = Counter()
        let container = container(scope: .graph, deinits: deinits)
        for index in 0..<width {
            container.register(Tracked.self, name: "\(index)") { _ in Tracked(deinits: deinits) }
        }
        container.register(Wide.self) { r in
            Wide(
                pairs: try (0..<width).map { index in
                    (try r.require(Tracked.self, name: "\(index)"), try r.require(Tracked.self, name: "\(index)"))
                }
            )
        }
        for level in 0..<levels {
            container.register(Probe.self, name: "\(level)") { [unowned container] _ in
                Probe {
                    // Runs while the graph of `level` is being released: a new top-level graph on this thread.
                    if level + 1 < levels { _ = container.resolve(Root.self, name: "\(level + 1)") }
                }
            }
            container.register(Root.self, name: "\(level)") { r in
                let wide = try r.require(Wide.self)
                if wide.pairs.allSatisfy({ $0.0 === $0.1 }) { sharingGraphs.increment() }
                _ = try r.require(Probe.self, name: "\(level)")  // held by the graph alone
                return Root()
            }
        }

        let resolves = 5
        for _ in 0..<resolves {
            _ = try container.require(Root.self, name: "0")
        }

        #expect(sharingGraphs.value == resolves * levels)
        #expect(deinits.value == resolves * levels * width)
        #expect(try perGraphRecords(reachableFrom: container) == 0)
    }

    /// Shows that the record count used above observes real records: a graph that can be named again (here
    /// through `withObjectGraph`) and whose instance is still alive keeps its record, so that a later resolve
    /// in that graph finds the instance.
    @Test func graphStorageKeepsARecordOnlyWhileTheGraphsInstanceIsAlive() throws {
        let deinits = Counter()
        let container = container(scope: .graph, deinits: deinits)
        func resolveInNamedGraph() throws -> Tracked {
            try container.withObjectGraph(GraphIdentifier()) { try $0.require(Tracked.self) }
        }

        let storage: GraphStorage
        do {
            let kept = try (0..<3).map { _ in try resolveInNamedGraph() }
            // An optimized build may release `kept` after its last use: the records are counted while it lives.
            storage = try withExtendedLifetime(kept) {
                _ = try resolveInNamedGraph()
                let storage = try #require(graphStorages(reachableFrom: container).first)
                #expect(recordCount(of: storage) == 4)
                return storage
            }
        }

        _ = try resolveInNamedGraph()
        #expect(recordCount(of: storage) == 1)
        #expect(deinits.value == 5)
    }
}

/// Every `GraphStorage` reachable from `root` through stored properties, found by reflection (the container
/// keeps its registrations and their storages private).
private func graphStorages(reachableFrom root: Any) -> [GraphStorage] {
    var found: [GraphStorage] = []
    var visited: Set<ObjectIdentifier> = []
    func visit(_ value: Any, depth: Int) {
        if let storage = value as? GraphStorage {
            if visited.insert(ObjectIdentifier(storage)).inserted { found.append(storage) }
            return
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .class, !visited.insert(ObjectIdentifier(value as AnyObject)).inserted { return }
        guard depth < 16 else { return }
        var level: Mirror? = mirror
        while let current = level {
            for child in current.children { visit(child.value, depth: depth + 1) }
            level = current.superclassMirror
        }
    }
    visit(root, depth: 0)
    return found
}

/// How many per-graph records the `GraphStorage`s reachable from `root` hold together.
func perGraphRecords(reachableFrom root: Any) throws -> Int {
    try graphStorages(reachableFrom: root).reduce(0) { $0 + (try #require(recordCount(of: $1))) }
}

/// How many per-graph records `storage` holds: the size of its dictionary, found by reflection.
private func recordCount(of storage: GraphStorage) -> Int? {
    Mirror(reflecting: storage).children
        .map { Mirror(reflecting: $0.value) }
        .first { $0.displayStyle == .dictionary }?
        .children.count
}
