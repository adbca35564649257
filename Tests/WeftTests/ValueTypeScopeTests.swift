import Testing
import Weft

/// Scopes and value types: a struct, enum or tuple has no identity, so `.graph` runs its factory for every
/// request (as Swinject does) while `.container` keeps one value and hands out copies, and `.scoped` one value per
/// scope.
@Suite struct ValueTypeScopeTests {
    struct Stamp: Equatable {
        let number: Int
    }

    enum Mode: Equatable {
        case numbered(Int)
    }

    struct TwoStamps {
        let first: Stamp
        let second: Stamp
    }

    final class StampHolder {
        let first: Stamp
        let second: Stamp
        let modes: (Mode, Mode)
        init(first: Stamp, second: Stamp, modes: (Mode, Mode)) {
            self.first = first
            self.second = second
            self.modes = modes
        }
    }

    /// Registers `Stamp` and `Mode` in `scope`, each numbered by its factory's calls, and `StampHolder` asking
    /// for each twice in one graph.
    private func container(scope: ObjectScope, calls: Counter) -> Container {
        let container = Container()
        container.register(Stamp.self) { _ in Stamp(number: calls.increment()) }.inObjectScope(scope)
        container.register(Mode.self) { _ in .numbered(calls.increment()) }.inObjectScope(scope)
        container.register(StampHolder.self) { r in
            StampHolder(
                first: try r.require(), second: try r.require(),
                modes: (try r.require(Mode.self), try r.require(Mode.self)))
        }
        return container
    }

    @Test func graphScopeRunsAValueTypesFactoryForEveryRequestInOneGraph() throws {
        let calls = Counter()
        let holder = try container(scope: .graph, calls: calls).require(StampHolder.self)
        #expect(holder.first != holder.second)
        #expect(holder.modes.0 != holder.modes.1)
        #expect(calls.value == 4)
    }

    @Test func defaultScopeIsGraphAndSoMakesAFreshValueEachTime() throws {
        let calls = Counter()
        let container = Container()
        container.register(Stamp.self) { _ in Stamp(number: calls.increment()) }
        container.register(TwoStamps.self) { r in TwoStamps(first: try r.require(), second: try r.require()) }
        let two = try container.require(TwoStamps.self)
        #expect(two.first.number != two.second.number)
        #expect(calls.value == 2)
    }

    @Test func tupleServicesAreValuesToo() throws {
        let calls = Counter()
        let container = Container()
        container.register((Int, String).self) { _ in (calls.increment(), "made") }
        container.register([Int].self) { r in
            [try r.require((Int, String).self).0, try r.require((Int, String).self).0]
        }
        #expect(try container.require([Int].self) == [1, 2])
    }

    @Test func containerScopeKeepsOneValueAndHandsOutCopies() throws {
        let calls = Counter()
        let container = container(scope: .container, calls: calls)
        let holder = try container.require(StampHolder.self)
        #expect(holder.first == holder.second)
        #expect(holder.modes.0 == holder.modes.1)
        #expect(try container.require(Stamp.self) == holder.first)
        #expect(calls.value == 2)
    }

    @Test func scopedScopeKeepsOneValuePerScopeAndReleasesItWithTheScope() async throws {
        let calls = Counter()
        let container = container(scope: .scoped, calls: calls)
        let scope = container.makeScope()
        let holder = try scope.require(StampHolder.self)
        #expect(holder.first == holder.second)
        #expect(holder.modes.0 == holder.modes.1)
        #expect(try scope.require(Stamp.self) == holder.first)
        #expect(try await scope.async.require(Mode.self) == holder.modes.0)
        #expect(calls.value == 2)
        try await scope.end()

        let later = container.makeScope()
        #expect(try later.require(Stamp.self) != holder.first)
        #expect(calls.value == 3)
        try await later.end()
    }

    @Test func asyncResolutionOfAGraphScopedValueAlsoMakesOneForEveryRequest() async throws {
        let calls = Counter()
        let container = container(scope: .graph, calls: calls)
        let holder = try await container.async.require(StampHolder.self)
        #expect(holder.first != holder.second)
        #expect(calls.value == 4)
    }

    final class Node {}

    @Test func graphScopeStillSharesAClassInstanceWithinOneGraph() throws {
        let container = Container()
        container.register(Node.self) { _ in Node() }
        container.register([Node].self) { r in [try r.require(Node.self), try r.require(Node.self)] }
        let nodes = try container.require([Node].self)
        #expect(nodes[0] === nodes[1])
    }
}
