import Testing
import Weft

/// A scope keeps its `.scoped` instances in slots of its own, keyed by registration, while the registrations stay
/// shared by every scope. Whatever a later scope gets must be its own instance, the registration's current
/// configuration, and dependencies that are current; a scope released without ending releases its instances.
@Suite struct ScopeSlotLifetimeTests {
    final class Settings: Sendable {
        let version: Int
        init(version: Int) { self.version = version }
    }

    final class Work: @unchecked Sendable {
        let id: Int
        let settings: Settings?
        var completed = 0
        init(id: Int, settings: Settings? = nil) {
            self.id = id
            self.settings = settings
        }
    }

    final class Released: @unchecked Sendable {
        let onDeinit: () -> Void
        init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }

    /// Resolves `Work` twice in a new scope, ends it and releases it; returns the two ids.
    func idsOfOneScope(_ container: Container) async throws -> (Int, Int) {
        let scope = container.makeScope()
        let first = try scope.require(Work.self)
        let second = try scope.require(Work.self)
        try await scope.end()
        return (first.id, second.id)
    }

    @Test func eachLaterScopeMakesItsOwnInstance() async throws {
        let made = Counter()
        let container = Container()
        container.register(Work.self) { _ in Work(id: made.increment()) }.inObjectScope(.scoped)

        var ids: [Int] = []
        for _ in 0..<20 {
            let (first, second) = try await idsOfOneScope(container)
            #expect(first == second)
            ids.append(first)
        }
        #expect(ids == Array(1...20))
    }

    @Test func aCallbackAddedWhileAScopeLivesRunsInTheScopesAfterIt() async throws {
        let made = Counter()
        let container = Container()
        let entry = container.register(Work.self) { _ in Work(id: made.increment()) }.inObjectScope(.scoped)

        var scope: Container? = container.makeScope()
        _ = try scope?.require(Work.self)
        entry.initCompleted { _, work in work.completed += 1 }
        try await scope?.end()
        scope = nil

        for _ in 0..<3 {
            let later = container.makeScope()
            #expect(try later.require(Work.self).completed == 1)
            try await later.end()
        }
    }

    @Test func aScopeAfterAResetUsesTheCurrentSingleton() async throws {
        let versions = Counter()
        let made = Counter()
        let container = Container()
        container.register(Settings.self) { _ in Settings(version: versions.increment()) }.inObjectScope(.container)
        container.register(Work.self) { r in
            Work(id: made.increment(), settings: try r.require(Settings.self))
        }.inObjectScope(.scoped)

        for expected in 1...4 {
            let scope = container.makeScope()
            #expect(try scope.require(Work.self).settings?.version == expected)
            try await scope.end()
            container.resetObjectScope(.container)
        }
    }

    @Test func aScopeReleasedWithoutEndingReleasesItsInstanceAndTheNextScopeGetsANewOne() throws {
        let released = Counter()
        let made = Counter()
        let container = Container()
        container.register(Released.self) { _ in
            _ = made.increment()
            return Released { released.increment() }
        }.inObjectScope(.scoped)

        for round in 1...3 {
            var scope: Container? = container.makeScope()
            _ = try scope?.require(Released.self)
            scope = nil
            #expect(released.value == round)
        }
        #expect(made.value == 3)
    }

    @Test func aScopeReleasedBeforeItsRegistrationIsReplacedLeavesNothingForTheNewOne() async throws {
        let container = Container()
        container.register(Work.self) { _ in Work(id: 1) }.inObjectScope(.scoped)
        #expect(try await idsOfOneScope(container) == (1, 1))
        container.register(Work.self) { _ in Work(id: 2) }.inObjectScope(.scoped)
        #expect(try await idsOfOneScope(container) == (2, 2))
    }

    @Test func threadsMakingAndReleasingScopesAtOnceNeverShareAnInstance() {
        let made = Counter()
        let container = Container()
        container.register(Work.self) { _ in Work(id: made.increment()) }.inObjectScope(.scoped)
        let rounds = lighterUnderSanitizer(300)
        let ids = Collected<Int>()
        let mixed = Counter()

        runOnThreads(4) { _ in
            for _ in 0..<rounds {
                let scope = container.makeScope()
                guard let first = scope.resolve(Work.self), let second = scope.resolve(Work.self) else {
                    mixed.increment()
                    continue
                }
                if first !== second { mixed.increment() }
                ids.append(first.id)
            }
        }
        #expect(mixed.value == 0)
        #expect(ids.values.count == 4 * rounds)
        // Every scope made its own instance: no id was handed to two scopes.
        #expect(Set(ids.values).count == 4 * rounds)
        #expect(made.value == 4 * rounds)
    }

    /// Ending a scope keeps its copy's memory for the copy's next scope, which may be made on another thread: each
    /// scope still gets its own instance, and every instance is released.
    @Test func tasksEndingAndReleasingScopesAtOnceGetTheirOwnInstancesAndReleaseEachOne() async throws {
        let made = Counter()
        let released = Counter()
        let container = Container()
        container.register(Released.self) { _ in
            made.increment()
            return Released { released.increment() }
        }.inObjectScope(.scoped)
        let rounds = lighterUnderSanitizer(300)
        let mixed = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<rounds {
                        let scope = container.makeScope()
                        let first = try scope.require(Released.self)
                        if try scope.require(Released.self) !== first { mixed.increment() }
                        try await scope.end()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(mixed.value == 0)
        #expect(made.value == 4 * rounds)
        #expect(released.value == 4 * rounds)
    }
}

extension ScopeSlotLifetimeTests {
    /// Whether a container whose `.scoped` `Work` registration was used by scopes (as `use` does) and the
    /// registration are both gone once the container is released.
    private func containerAndRegistrationAreReleased(after use: (Container) async throws -> Void) async throws
        -> Bool
    {
        weak var registration: ServiceEntry<Work>?
        weak var released: Container?
        do {
            let container = Container()
            registration = container.register(Work.self) { _ in Work(id: 0) }.inObjectScope(.scoped)
            try await use(container)
            released = container
        }
        return released == nil && registration == nil
    }

    @Test func aReleasedContainerReleasesItsScopedRegistrationAndTheSpareCopies() async throws {
        let released = try await containerAndRegistrationAreReleased { container in
            for _ in 0..<3 { _ = try await idsOfOneScope(container) }
        }
        #expect(released)
    }

    @Test func scopesOfAReleasedChildContainerLeaveTheParentsRegistrationFreeToGo() async throws {
        let released = try await containerAndRegistrationAreReleased { container in
            do {
                let child = Container(parent: container)
                for _ in 0..<3 { _ = try await idsOfOneScope(child) }
                let outer = child.makeScope()
                for _ in 0..<3 { _ = try await idsOfOneScope(outer) }
                try await outer.end()
            }
            for _ in 0..<3 { _ = try await idsOfOneScope(container) }
        }
        #expect(released)
    }

    /// A value that holds an object, to see when a scope lets go of it.
    struct Ticket: Sendable {
        let holder: Released
    }

    /// A protocol that is not class-bound: its values are existential boxes, not object references.
    protocol Lease: Sendable {}

    @Test func scopedValuesAndExistentialsAreSharedInAScopeAndReleasedWhenItEnds() async throws {
        let released = Counter()
        let made = Counter()
        let container = Container()
        container.register(Ticket.self) { _ in
            _ = made.increment()
            return Ticket(holder: Released { released.increment() })
        }.inObjectScope(.scoped)
        container.register((any Lease).self) { _ in
            _ = made.increment()
            return Released { released.increment() }
        }.inObjectScope(.scoped)

        for round in 1...3 {
            let scope = container.makeScope()
            do {
                let ticket = try scope.require(Ticket.self)
                #expect(try scope.require(Ticket.self).holder === ticket.holder)
                let lease = try scope.require((any Lease).self)
                #expect(try scope.require((any Lease).self) as AnyObject === lease as AnyObject)
            }
            try await scope.end()
            #expect(released.value == 2 * round)
        }
        #expect(made.value == 6)
    }
}

extension ScopeSlotLifetimeTests.Released: ScopeSlotLifetimeTests.Lease {}
