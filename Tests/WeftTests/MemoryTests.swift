import Testing
import Weft

/// What the container keeps alive, observed through deinit counters: graph-scoped instances only during their
/// resolve, weak-scoped ones while someone uses them, singletons until `removeAll`, `resetObjectScope` or the
/// container's own end; and per-resolve bookkeeping that does not grow (Swinject issue #510).
@Suite struct MemoryTests {
    // MARK: - Fixtures

    /// Counts its deinitializations.
    final class Tracked {
        private let deinits: Counter
        init(deinits: Counter) { self.deinits = deinits }
        deinit { deinits.increment() }
    }

    /// Holds two `Tracked` from one graph, and counts its own deinitializations.
    final class Holder {
        let first: Tracked
        let second: Tracked
        private let deinits: Counter
        init(first: Tracked, second: Tracked, deinits: Counter) {
            self.first = first
            self.second = second
            self.deinits = deinits
        }
        deinit { deinits.increment() }
    }

    /// `Tracked` in `scope`, counting factory calls and deinits, and a graph-scoped `Holder` of two of them.
    func container(
        scope: ObjectScope,
        factoryCalls: Counter = Counter(),
        deinits: Counter,
        holderDeinits: Counter = Counter()
    ) -> Container {
        let container = Container()
        container.register(Tracked.self) { _ in
            factoryCalls.increment()
            return Tracked(deinits: deinits)
        }
        .inObjectScope(scope)
        container.register(Holder.self) { r in
            Holder(first: try r.require(Tracked.self), second: try r.require(Tracked.self), deinits: holderDeinits)
        }
        return container
    }

    // MARK: - Graph scope

    @Test func graphScopedInstanceIsNotKeptAfterTheResolve() throws {
        let deinits = Counter()
        let container = container(scope: .graph, deinits: deinits)

        _ = try container.require(Tracked.self)
        _ = try container.require(Tracked.self)

        #expect(deinits.value == 2)
    }

    @Test func graphScopedDependenciesLiveExactlyAsLongAsWhatHoldsThem() throws {
        let deinits = Counter()
        let holderDeinits = Counter()
        let container = container(scope: .graph, deinits: deinits, holderDeinits: holderDeinits)

        var holder: Holder? = try container.require(Holder.self)
        #expect(holder?.first === holder?.second)
        #expect(deinits.value == 0)
        holder = nil

        #expect(holderDeinits.value == 1)
        #expect(deinits.value == 1)
    }

    @Test func graphScopedInstancesOfAFailedResolveAreReleased() throws {
        let deinits = Counter()
        let container = container(scope: .graph, deinits: deinits)
        container.register(Holder.self) { r in
            _ = try r.require(Tracked.self)
            _ = try r.require(Holder.self, name: "missing")
            return Holder(first: try r.require(Tracked.self), second: try r.require(Tracked.self), deinits: Counter())
        }

        #expect(throws: ResolutionError.self) { try container.require(Holder.self) }

        #expect(deinits.value == 1)
    }

    /// A graph that becomes nameable after its graph-scoped instance was made (the factory asks for its
    /// `GraphIdentifier`) and then fails: the instance, which went into its registration's storage when the graph
    /// became nameable, is discarded from it, so the graph, named again, makes a new one, and nothing of it is kept.
    @Test func aFailedGraphThatBecameNameableMidwayDiscardsTheInstancesItStored() throws {
        struct NoHolderToday: Error {}
        let deinits = Counter()
        let factoryCalls = Counter()
        let container = container(scope: .graph, factoryCalls: factoryCalls, deinits: deinits)
        let graphs = Collected<GraphIdentifier>()
        let failNext = Counter()
        container.register(Holder.self) { r in
            let first = try r.require(Tracked.self)  // made while the graph is private
            graphs.append(try r.require(GraphIdentifier.self))  // the graph becomes nameable
            if failNext.increment() == 1 { throw NoHolderToday() }
            return Holder(first: first, second: try r.require(Tracked.self), deinits: Counter())
        }

        #expect(throws: ResolutionError.self) { try container.require(Holder.self) }
        let graph = try #require(graphs.values.first)

        #expect(deinits.value == 1)
        #expect(try perGraphRecords(reachableFrom: container) == 0)
        let again = try container.withObjectGraph(graph) { try $0.require(Holder.self) }
        #expect(factoryCalls.value == 2)
        #expect(again.first === again.second)
        #expect(deinits.value == 1)
    }

    /// Adopted only by classes: its existential is a reference followed by a witness table.
    protocol TrackedObject: AnyObject {}
    /// Adopted by any type: its existential boxes the instance.
    protocol TrackedAnything {}

    /// One graph's instances of `Tracked` asked for as every kind of type a graph keeps: a class, a class-bound
    /// existential, `AnyObject`, an existential any type may adopt, and an optional.
    final class Shapes {
        let all: [AnyObject]
        init(_ all: [AnyObject]) { self.all = all }
    }

    @Test func graphScopedInstancesOfEveryKindOfTypeAreReleasedOnceWhenNothingHoldsThem() throws {
        let deinits = Counter()
        let container = Container()
        container.register(Tracked.self) { _ in Tracked(deinits: deinits) }
        container.register((any TrackedObject).self) { _ in Tracked(deinits: deinits) }
        container.register(AnyObject.self) { _ in Tracked(deinits: deinits) }
        container.register((any TrackedAnything).self) { _ in Tracked(deinits: deinits) }
        container.register(Tracked?.self) { _ in Tracked(deinits: deinits) }
        container.register(Shapes.self) { r in
            Shapes([
                try r.require(Tracked.self), try r.require((any TrackedObject).self), try r.require(AnyObject.self),
                try r.require((any TrackedAnything).self) as AnyObject, try r.require(Tracked?.self)!,
            ])
        }

        var shapes: Shapes? = try container.require(Shapes.self)
        #expect(shapes?.all.count == 5)
        #expect(deinits.value == 0)
        shapes = nil

        #expect(deinits.value == 5)
    }

    // MARK: - Weak scope

    @Test func weakScopedInstanceGoesWhenItsLastUserLetsGo() throws {
        let factoryCalls = Counter()
        let deinits = Counter()
        let container = container(scope: .weak, factoryCalls: factoryCalls, deinits: deinits)

        var firstUser: Tracked? = try container.require(Tracked.self)
        var secondUser: Tracked? = try container.require(Tracked.self)
        #expect(firstUser === secondUser)
        firstUser = nil
        #expect(deinits.value == 0)
        #expect(try container.require(Tracked.self) === secondUser)
        secondUser = nil
        #expect(deinits.value == 1)

        _ = try container.require(Tracked.self)
        #expect(factoryCalls.value == 2)
        #expect(deinits.value == 2)
    }

    // MARK: - Container scope

    @Test func removeAllReleasesSingletons() throws {
        let deinits = Counter()
        let container = container(scope: .container, deinits: deinits)
        _ = try container.require(Tracked.self)
        #expect(deinits.value == 0)

        container.removeAll()

        #expect(deinits.value == 1)
    }

    @Test func resetObjectScopeReleasesSingletons() throws {
        let factoryCalls = Counter()
        let deinits = Counter()
        let container = container(scope: .container, factoryCalls: factoryCalls, deinits: deinits)
        _ = try container.require(Tracked.self)
        #expect(deinits.value == 0)

        container.resetObjectScope(.container)

        #expect(deinits.value == 1)
        _ = try container.require(Tracked.self)
        #expect(factoryCalls.value == 2)
    }

    @Test func containerDeinitReleasesSingletons() throws {
        let deinits = Counter()
        weak var released: Container?

        try {
            let container = container(scope: .container, deinits: deinits)
            released = container
            _ = try container.require(Holder.self)
            _ = try container.require(Tracked.self)
            #expect(deinits.value == 0)
        }()

        #expect(released == nil)
        #expect(deinits.value == 1)
    }

    final class Parent {
        var child: Child?
        private let deinits: Counter
        init(deinits: Counter) { self.deinits = deinits }
        deinit { deinits.increment() }
    }

    final class Child {
        weak var parent: Parent?
        private let deinits: Counter
        init(deinits: Counter) { self.deinits = deinits }
        deinit { deinits.increment() }
    }

    @Test func containerDeinitReleasesSingletonsThatReferToEachOther() throws {
        let deinits = Counter()
        weak var released: Container?

        try {
            let container = Container()
            released = container
            container.register(Parent.self) { _ in Parent(deinits: deinits) }
                .inObjectScope(.container)
                .initCompleted { r, parent in parent.child = try r.require(Child.self) }
            container.register(Child.self) { _ in Child(deinits: deinits) }
                .inObjectScope(.container)
                .initCompleted { r, child in child.parent = try r.require(Parent.self) }
            let parent = try container.require(Parent.self)
            #expect(parent.child?.parent === parent)
        }()

        #expect(released == nil)
        #expect(deinits.value == 2)
    }
}

extension MemoryTests.Tracked: MemoryTests.TrackedObject, MemoryTests.TrackedAnything {}
