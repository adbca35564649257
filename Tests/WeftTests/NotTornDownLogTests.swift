import Testing
import Weft

/// A singleton with a teardown, named so that only this suite's messages are collected.
private final class UnendedJournal: Teardown, Sendable {
    let tornDown: Counter
    let released: Counter
    init(tornDown: Counter, released: Counter) {
        self.tornDown = tornDown
        self.released = released
    }
    func tearDown() throws { tornDown.increment() }
    deinit { released.increment() }
}

/// A per-scope service with an async teardown.
private actor UnendedUnitOfWork: AsyncTeardown {
    let tornDown: Counter
    init(tornDown: Counter) { self.tornDown = tornDown }
    func tearDown() async throws { tornDown.increment() }
}

/// A singleton without a teardown.
private final class UnendedCache: Sendable {}

/// `[Weft.notTornDown]`: a container or scope released without `end()` while it keeps instances to tear down
/// says so, naming them, and releases them without tearing them down.
@Suite struct NotTornDownLogTests {
    private static let marker = "[Weft.notTornDown]"

    private func container(tornDown: Counter, released: Counter = Counter()) -> Container {
        let container = Container()
        container.register(UnendedJournal.self) { _ in UnendedJournal(tornDown: tornDown, released: released) }
            .inObjectScope(.container)
        container.register(UnendedUnitOfWork.self) { _ in UnendedUnitOfWork(tornDown: tornDown) }
            .inObjectScope(.scoped)
        container.register(UnendedCache.self) { _ in UnendedCache() }.inObjectScope(.container)
        return container
    }

    /// The messages of this suite logged while `body` runs; `body` releases what it makes before it returns.
    private func notTornDownMessages(naming name: String, _ body: () throws -> Void) rethrows -> [String] {
        try messagesLogged(containing: Self.marker, while: body).filter { $0.contains(name) }
    }

    @Test func aContainerReleasedWithoutEndNamesItsInstancesAndReleasesThemWithoutTeardown() throws {
        let tornDown = Counter()
        let released = Counter()

        let messages = try notTornDownMessages(naming: "UnendedJournal") {
            let container = container(tornDown: tornDown, released: released)
            _ = try container.require(UnendedJournal.self)
            _ = try container.require(UnendedCache.self)
        }

        #expect(
            messages == [
                "[Weft.notTornDown] A container was released without end(): UnendedJournal not torn down."
            ]
        )
        #expect(tornDown.value == 0)
        #expect(released.value == 1, "the singleton outlived its container")
    }

    @Test func aReplacedSingletonStillWaitingForTeardownIsNamedToo() throws {
        let tornDown = Counter()
        let released = Counter()

        let messages = try notTornDownMessages(naming: "UnendedJournal") {
            let container = container(tornDown: tornDown, released: released)
            _ = try container.require(UnendedJournal.self)
            container.register(UnendedJournal.self) { _ in UnendedJournal(tornDown: tornDown, released: released) }
                .inObjectScope(.container)
            _ = try container.require(UnendedJournal.self)
        }

        #expect(
            messages == [
                "[Weft.notTornDown] A container was released without end(): UnendedJournal, UnendedJournal not "
                    + "torn down."
            ]
        )
        #expect(tornDown.value == 0)
        #expect(released.value == 2)
    }

    @Test func aScopeReleasedWithoutEndNamesItsScopedInstances() async throws {
        let tornDown = Counter()
        let container = container(tornDown: tornDown)

        let messages = try notTornDownMessages(naming: "UnendedUnitOfWork") {
            let scope = container.makeScope()
            _ = try scope.require(UnendedUnitOfWork.self)
            _ = try scope.require(UnendedUnitOfWork.self)
        }

        #expect(
            messages == ["[Weft.notTornDown] A scope was released without end(): UnendedUnitOfWork not torn down."]
        )
        #expect(tornDown.value == 0)
        try await container.endPatiently()
        #expect(tornDown.value == 0, "ending the container tore down an instance of a released scope")
    }

    @Test func anEndedContainerOrScopeLogsNothing() async throws {
        let tornDown = Counter()
        var kept: [Container] = []
        do {
            let container = container(tornDown: tornDown)
            let scope = container.makeScope()
            _ = try container.require(UnendedJournal.self)
            _ = try scope.require(UnendedUnitOfWork.self)
            try await scope.endPatiently()
            try await container.endPatiently()
            kept = [scope, container]
        }
        #expect(tornDown.value == 2)

        let messages = notTornDownMessages(naming: "Unended") { kept.removeAll() }

        #expect(messages.isEmpty)
    }

    @Test func aContainerWithNothingToTearDownLogsNothing() throws {
        let messages = try notTornDownMessages(naming: "Unended") {
            let container = container(tornDown: Counter())
            _ = try container.require(UnendedCache.self)
            _ = try container.makeScope().require(UnendedCache.self)
        }

        #expect(messages.isEmpty)
    }
}
