import Foundation
import Testing
import Weft

/// How instances are shared: `.transient`, `.graph` (the default), `.container`, `.weak` and custom scopes,
/// resetting scopes, and object graphs (`GraphIdentifier`, `withObjectGraph`).
@Suite struct ObjectScopeTests {
    final class Service {}

    /// Asks for `Service` twice, from two places of one object graph.
    final class Pair {
        let first: Service
        let second: Service
        init(first: Service, second: Service) {
            self.first = first
            self.second = second
        }
    }

    final class Other {}

    /// Registers `Service` in `scope` and `Pair` on top of it.
    private func container(scope: ObjectScope, calls: Counter = Counter()) -> Container {
        let container = Container()
        container.register(Service.self) { _ in
            calls.increment()
            return Service()
        }
        .inObjectScope(scope)
        container.register(Pair.self) { r in
            Pair(first: r.resolve(Service.self)!, second: r.resolve(Service.self)!)
        }
        return container
    }

    // MARK: Built-in scopes

    @Test func graphIsTheDefaultScope() throws {
        let container = Container()
        let entry = container.register(Service.self) { _ in Service() }

        #expect(entry.objectScope === ObjectScope.graph)
    }

    @Test func transientMakesANewInstanceEvenWithinOneGraph() throws {
        let calls = Counter()
        let container = container(scope: .transient, calls: calls)

        let pair = try #require(container.resolve(Pair.self))
        #expect(pair.first !== pair.second)
        #expect(container.resolve(Service.self) !== container.resolve(Service.self))
        #expect(calls.value == 4)
    }

    @Test func graphScopeSharesInstancesWithinOneResolve() throws {
        let calls = Counter()
        let container = container(scope: .graph, calls: calls)

        let pair = try #require(container.resolve(Pair.self))
        #expect(pair.first === pair.second)
        #expect(calls.value == 1)
    }

    @Test func graphScopeMakesNewInstancesForEachResolve() throws {
        let container = container(scope: .graph)

        let first = try #require(container.resolve(Pair.self))
        let second = try #require(container.resolve(Pair.self))
        #expect(first.first !== second.first)
        #expect(container.resolve(Service.self) !== container.resolve(Service.self))
    }

    @Test func containerScopeKeepsOneInstanceAcrossResolves() throws {
        let calls = Counter()
        let container = container(scope: .container, calls: calls)

        let pair = try #require(container.resolve(Pair.self))
        let direct = try #require(container.resolve(Service.self))
        #expect(pair.first === pair.second)
        #expect(pair.first === direct)
        #expect(calls.value == 1)
    }

    @Test func weakScopeSharesTheInstanceWhileSomeoneHoldsIt() throws {
        let calls = Counter()
        let container = container(scope: .weak, calls: calls)

        let held = try #require(container.resolve(Service.self))
        #expect(container.resolve(Service.self) === held)
        let pair = try #require(container.resolve(Pair.self))
        #expect(pair.first === held)
        #expect(pair.second === held)
        #expect(calls.value == 1)
    }

    @Test func weakScopeMakesANewInstanceOnceNobodyHoldsTheOldOne() throws {
        let calls = Counter()
        let container = container(scope: .weak, calls: calls)

        weak var released: Service?
        do {
            let held = try #require(container.resolve(Service.self))
            released = held
        }
        #expect(released == nil)
        _ = try #require(container.resolve(Service.self))
        #expect(calls.value == 2)
    }

    @Test func weakScopeSharesWithinOneGraphEvenIfNothingElseHoldsTheInstance() throws {
        let container = container(scope: .weak)

        let pair = try #require(container.resolve(Pair.self))
        #expect(pair.first === pair.second)
    }

    @Test func defaultObjectScopeOfTheContainerAppliesToRegistrationsThatSetNone() throws {
        let container = Container(defaultObjectScope: .container)
        let entry = container.register(Service.self) { _ in Service() }
        let overridden = container.register(Other.self) { _ in Other() }.inObjectScope(.transient)

        #expect(entry.objectScope === ObjectScope.container)
        #expect(overridden.objectScope === ObjectScope.transient)
        #expect(try container.require(Service.self) === container.resolve(Service.self))
        #expect(container.resolve(Other.self) !== container.resolve(Other.self))
    }

    // MARK: Custom scopes

    /// A storage that keeps its instance like `.container` and records what the container does with it.
    final class RecordingStorage: InstanceStorage {
        let log: Collected<String>
        var instance: Any? {
            didSet { log.append(instance == nil ? "cleared" : "stored") }
        }

        init(log: Collected<String>) {
            self.log = log
        }
    }

    @Test func customScopeUsesItsOwnStorage() throws {
        let log = Collected<String>()
        let session = ObjectScope(storageFactory: { RecordingStorage(log: log) }, description: "session")
        let container = Container()
        let calls = Counter()
        container.register(Service.self) { _ in
            calls.increment()
            return Service()
        }
        .inObjectScope(session)

        let first = try #require(container.resolve(Service.self))
        let second = try #require(container.resolve(Service.self))
        #expect(first === second)
        #expect(calls.value == 1)
        #expect(log.values.first == "stored")
        #expect(
            container.description
                == "[\n    { Service: Service, Factory: Resolver -> Service, ObjectScope: session }\n]"
        )
    }

    @Test func resettingACustomScopeClearsAnInstanceItsStorageHeldBeforeAnyResolve() throws {
        let log = Collected<String>()
        let storage = RecordingStorage(log: log)
        let preloaded = ObjectScope(storageFactory: { storage }, description: "preloaded")
        let container = Container()
        container.register(Service.self) { _ in Service() }.inObjectScope(preloaded)
        storage.instance = Service()
        Container(parent: container).resetObjectScope(preloaded)
        #expect(storage.instance == nil)
        #expect(log.values == ["stored", "cleared"])
    }

    /// A scope written from scratch against `ObjectScopeProtocol`.
    final class CountingScope: ObjectScopeProtocol {
        let made = Counter()

        func makeStorage() -> any InstanceStorage {
            made.increment()
            return PermanentStorage()
        }
    }

    @Test func customObjectScopeProtocolMakesOneStoragePerRegistration() throws {
        let scope = CountingScope()
        let container = Container()
        container.register(Service.self) { _ in Service() }.inObjectScope(scope)
        container.register(Other.self) { _ in Other() }.inObjectScope(scope)

        #expect(try container.require(Service.self) === container.resolve(Service.self))
        #expect(try container.require(Other.self) === container.resolve(Other.self))
        #expect(scope.made.value == 2)
    }

    /// A scope object whose deinit resolves, from another thread, the service it was the scope of, and waits up to
    /// two seconds for the answer: the resolve takes the registration's lock, so it answers in time only when the
    /// deinit runs with that lock free.
    final class ResolvingOnReleaseScope: ObjectScopeProtocol, @unchecked Sendable {
        let container: Container
        let answeredInTime: Collected<Bool>

        init(container: Container, answeredInTime: Collected<Bool>) {
            self.container = container
            self.answeredInTime = answeredInTime
        }

        func makeStorage() -> any InstanceStorage { PermanentStorage() }

        deinit {
            let container = container
            let resolve = runOnThread { _ = container.resolve(Service.self) }
            answeredInTime.append(resolve.wait(seconds: 2))
        }
    }

    @Test func aScopeObjectThatInObjectScopeReplacesIsReleasedWithTheRegistrationsLockFree() {
        let container = Container()
        let answeredInTime = Collected<Bool>()
        let registration = container.register(Service.self) { _ in Service() }
        registration.inObjectScope(ResolvingOnReleaseScope(container: container, answeredInTime: answeredInTime))
        registration.inObjectScope(.container)
        #expect(answeredInTime.values == [true])
    }

    @Test func resetObjectScopeDiscardsTheInstancesOfACustomScope() throws {
        let log = Collected<String>()
        let session = ObjectScope(storageFactory: { RecordingStorage(log: log) }, description: "session")
        let container = Container()
        container.register(Service.self) { _ in Service() }.inObjectScope(session)

        let before = try #require(container.resolve(Service.self))
        container.resetObjectScope(session)
        let after = try #require(container.resolve(Service.self))

        #expect(before !== after)
        #expect(log.values.contains("cleared"))
    }

    // MARK: resetObjectScope

    @Test func resetObjectScopeDiscardsEveryInstanceOfThatScope() throws {
        let container = Container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.container)
        container.register(Other.self) { _ in Other() }.inObjectScope(.container)
        let service = try #require(container.resolve(Service.self))
        let other = try #require(container.resolve(Other.self))

        container.resetObjectScope(.container)

        #expect(try container.require(Service.self) !== service)
        #expect(try container.require(Other.self) !== other)
    }

    @Test func resetObjectScopeLeavesOtherScopesAlone() throws {
        let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        let container = Container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.container)
        container.register(Other.self) { _ in Other() }.inObjectScope(session)
        let service = try #require(container.resolve(Service.self))
        let other = try #require(container.resolve(Other.self))

        container.resetObjectScope(session)

        #expect(container.resolve(Service.self) === service)
        #expect(try container.require(Other.self) !== other)
    }

    @Test func resetObjectScopeForOneServiceTypeLeavesTheOthers() throws {
        let container = Container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.container)
        container.register(Other.self) { _ in Other() }.inObjectScope(.container)
        let service = try #require(container.resolve(Service.self))
        let other = try #require(container.resolve(Other.self))

        container.resetObjectScope(.container, serviceType: Service.self)

        #expect(try container.require(Service.self) !== service)
        #expect(container.resolve(Other.self) === other)
    }

    @Test func resetObjectScopeForAServiceTypeInAnotherScopeDoesNothing() throws {
        let container = Container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.container)
        let service = try #require(container.resolve(Service.self))

        container.resetObjectScope(.weak, serviceType: Service.self)

        #expect(container.resolve(Service.self) === service)
    }

    // MARK: Object graphs

    /// Records the graph its factory ran in.
    final class GraphProbe {
        let graph: GraphIdentifier
        let service: Service
        init(graph: GraphIdentifier, service: Service) {
            self.graph = graph
            self.service = service
        }
    }

    private func probeContainer() -> Container {
        let container = Container()
        container.register(Service.self) { _ in Service() }
        container.register(GraphProbe.self) { r in
            GraphProbe(graph: r.resolve(GraphIdentifier.self)!, service: r.resolve(Service.self)!)
        }
        .inObjectScope(.transient)
        return container
    }

    @Test func factoriesCanResolveTheGraphIdentifierOfTheirGraph() throws {
        let container = probeContainer()

        let first = try #require(container.resolve(GraphProbe.self))
        let second = try #require(container.resolve(GraphProbe.self))
        #expect(first.graph != second.graph)
    }

    @Test func everyFactoryOfOneGraphSeesTheSameGraphIdentifier() throws {
        let container = probeContainer()
        container.register(Pair.self) { r in
            let left = r.resolve(GraphProbe.self)!
            let right = r.resolve(GraphProbe.self)!
            #expect(left.graph == right.graph)
            return Pair(first: left.service, second: right.service)
        }

        let pair = try #require(container.resolve(Pair.self))
        #expect(pair.first === pair.second)
    }

    @Test func graphIdentifierIsNotResolvableOutsideAResolution() {
        #expect(Container().resolve(GraphIdentifier.self) == nil)
    }

    @Test func withObjectGraphResolvesIntoAnEarlierGraph() throws {
        let container = probeContainer()
        let probe = try #require(container.resolve(GraphProbe.self))

        let again = container.withObjectGraph(probe.graph) { $0.resolve(Service.self) }
        let fresh = try #require(container.resolve(Service.self))

        #expect(again === probe.service)
        #expect(fresh !== probe.service)
    }

    @Test func withObjectGraphReturnsWhatTheClosureReturns() throws {
        let container = probeContainer()
        let probe = try #require(container.resolve(GraphProbe.self))

        let graph = container.withObjectGraph(probe.graph) { $0.resolve(GraphProbe.self)?.graph }
        #expect(graph == probe.graph)
    }

    @Test func withObjectGraphMakesANewInstanceWhenTheGraphsOneIsGone() throws {
        let container = probeContainer()
        let graph: GraphIdentifier
        weak var released: Service?
        do {
            let probe = try #require(container.resolve(GraphProbe.self))
            graph = probe.graph
            released = probe.service
        }
        #expect(released == nil)

        let service = container.withObjectGraph(graph) { $0.resolve(Service.self) }
        #expect(service != nil)
    }
}
