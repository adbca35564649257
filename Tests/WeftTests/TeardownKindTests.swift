import Foundation
import Testing
import Weft

/// How an instance is torn down is decided by its dynamic type, once per type a registration meets, and kept with
/// the instance until its scope ends: `AsyncTeardown` wins over `Teardown`, a registration whose instances change
/// type tears each down as its own type says, and subclasses are torn down like their superclass.
@Suite struct TeardownKindTests {
    protocol Resource: AnyObject {}

    /// Adopts both protocols: only the async teardown may run.
    final class Both: Resource, Teardown, AsyncTeardown, @unchecked Sendable {
        let calls: Tally
        init(calls: Tally) { self.calls = calls }
        func tearDown() throws { calls.add("sync") }
        func tearDown() async throws { calls.add("async") }
    }

    class Closing: Resource, Teardown, @unchecked Sendable {
        let calls: Tally
        init(calls: Tally) { self.calls = calls }
        func tearDown() throws { calls.add("closing") }
    }

    final class ClosingSubclass: Closing, @unchecked Sendable {
        override func tearDown() throws { calls.add("subclass") }
    }

    final class Plain: Resource {}

    /// A class whose subclass alone is torn down.
    class Connection: @unchecked Sendable {}

    final class PooledConnection: Connection, Teardown, @unchecked Sendable {
        let calls: Tally
        init(calls: Tally) { self.calls = calls }
        func tearDown() throws { calls.add("pooled") }
    }

    actor Committing: Resource, AsyncTeardown {
        let calls: Tally
        init(calls: Tally) { self.calls = calls }
        func tearDown() async throws { calls.add("committing") }
    }

    /// A thread-safe count of named events.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [String] = []
        var all: [String] { lock.withLock { events } }
        func add(_ event: String) { lock.withLock { events.append(event) } }
    }

    @Test func aTypeAdoptingBothTeardownsIsTornDownOnceAsynchronously() async throws {
        let calls = Tally()
        let container = Container()
        container.register(Both.self) { _ in Both(calls: calls) }.inObjectScope(.scoped)
        let scope = container.makeScope()
        _ = try scope.require(Both.self)
        try await scope.endPatiently()
        #expect(calls.all == ["async"])
    }

    @Test func aRegistrationWhoseInstancesChangeTypeTearsDownEachAsItsTypeSays() async throws {
        let calls = Tally()
        let made = Counter()
        let container = Container()
        container.register((any Resource).self) { _ -> any Resource in
            switch made.increment() % 4 {
            case 1: Closing(calls: calls)
            case 2: Plain()
            case 3: Committing(calls: calls)
            default: ClosingSubclass(calls: calls)
            }
        }
        .inObjectScope(.scoped)
        for _ in 0..<8 {
            let scope = container.makeScope()
            _ = try scope.require((any Resource).self)
            try await scope.endPatiently()
        }
        #expect(calls.all == ["closing", "committing", "subclass", "closing", "committing", "subclass"])
    }

    @Test func aClassRegistrationWhoseInstancesAreSometimesASubclassTearsDownOnlyTheSubclassOnes() async throws {
        let calls = Tally()
        let made = Counter()
        let container = Container()
        container.register(Connection.self) { _ in
            made.increment() % 2 == 0 ? PooledConnection(calls: calls) : Connection()
        }
        .inObjectScope(.scoped)
        for _ in 0..<6 {
            let scope = container.makeScope()
            _ = try scope.require(Connection.self)
            try await scope.endPatiently()
        }
        #expect(calls.all == ["pooled", "pooled", "pooled"])
    }

    @Test func singletonsOfEveryKindAreTornDownNewestFirstWhenTheContainerEnds() async throws {
        let calls = Tally()
        let container = Container()
        container.register(Closing.self) { _ in Closing(calls: calls) }.inObjectScope(.container)
        container.register(Committing.self) { _ in Committing(calls: calls) }.inObjectScope(.container)
        container.register(Plain.self) { _ in Plain() }.inObjectScope(.container)
        _ = try container.require(Closing.self)
        _ = try container.require(Plain.self)
        _ = try container.require(Committing.self)
        try await container.endPatiently()
        #expect(calls.all == ["committing", "closing"])
    }
}
