import Foundation
import Testing
import Weft

/// `resolve` logs the text `require` throws, and a container stays usable after any failure.
extension ResolutionErrorTests {
    // MARK: - resolve reports the same text

    final class UnregisteredForLoggingTest {}

    final class NeedsUnregisteredForLoggingTest {
        init(_: UnregisteredForLoggingTest) {}
    }

    @Test func resolveReturnsNilAndLogsTheTextRequireThrows() throws {
        let container = Container()
        container.register(NeedsUnregisteredForLoggingTest.self) { r in
            NeedsUnregisteredForLoggingTest(try r.require(UnregisteredForLoggingTest.self))
        }
        let thrown = try #require(throws: ResolutionError.self) {
            try container.require(NeedsUnregisteredForLoggingTest.self)
        }

        var resolved: NeedsUnregisteredForLoggingTest?
        let messages = messagesLogged(containing: "UnregisteredForLoggingTest") {
            resolved = container.resolve(NeedsUnregisteredForLoggingTest.self)
        }

        #expect(resolved == nil)
        #expect(messages == [thrown.description])
        #expect(
            thrown.description == """
                [Weft.missingRegistration] No registration for UnregisteredForLoggingTest.
                Resolution path: NeedsUnregisteredForLoggingTest -> UnregisteredForLoggingTest
                """
        )
    }

    // MARK: - The container stays usable after a failure

    final class Singleton {}

    @Test(arguments: [ObjectScope.container, .weak])
    func sharedInstanceWhoseInitCompletedThrewIsBuiltAnewOnTheNextRequire(scope: ObjectScope) throws {
        let factoryCalls = Counter()
        let callbackCalls = Counter()
        // Keeps the half-built instance alive, so that a weak scope could still hand it out.
        let halfBuilt = Collected<Singleton>()
        let container = Container()
        container.register(Singleton.self) { _ in
            factoryCalls.increment()
            return Singleton()
        }
        .inObjectScope(scope)
        .initCompleted { _, singleton in
            if callbackCalls.increment() == 1 {
                halfBuilt.append(singleton)
                throw EngineTrouble(description: "not yet")
            }
        }

        #expect(throws: ResolutionError.self) { try container.require(Singleton.self) }
        let first = try container.require(Singleton.self)
        let second = try container.require(Singleton.self)

        #expect(factoryCalls.value == 2)
        #expect(callbackCalls.value == 2)
        #expect(first !== halfBuilt.values.first)
        #expect(first === second)
    }

    @Test func singletonWhoseCallbacksNeverRanBecauseItsGraphFailedIsBuiltAnew() throws {
        let factoryCalls = Counter()
        let callbackCalls = Counter()
        let container = Container()
        container.register(Singleton.self) { _ in
            factoryCalls.increment()
            return Singleton()
        }
        .inObjectScope(.container)
        .initCompleted { _, _ in callbackCalls.increment() }
        // Garage's factory gets the singleton, then fails before the singleton's callback can run.
        container.register(Garage.self) { r in
            _ = try r.require(Singleton.self)
            return Garage(car: try r.require(Car.self))
        }

        #expect(throws: ResolutionError.self) { try container.require(Garage.self) }
        #expect(callbackCalls.value == 0)
        _ = try container.require(Singleton.self)

        #expect(factoryCalls.value == 2)
        #expect(callbackCalls.value == 1)
    }

    @Test func singletonCompletedDuringAFailedGraphIsKept() throws {
        let factoryCalls = Counter()
        let container = Container()
        container.register(Singleton.self) { _ in
            factoryCalls.increment()
            return Singleton()
        }
        .inObjectScope(.container)
        container.register(Garage.self) { r in
            _ = try r.require(Singleton.self)
            return Garage(car: try r.require(Car.self))
        }

        #expect(throws: ResolutionError.self) { try container.require(Garage.self) }
        _ = try container.require(Singleton.self)

        #expect(factoryCalls.value == 1)
    }

    /// Graph-scoped; remembers the graph it was made in.
    final class GraphPart {
        let graph: GraphIdentifier
        init(graph: GraphIdentifier) { self.graph = graph }
    }

    final class PartPair {
        let first: GraphPart
        let second: GraphPart
        init(first: GraphPart, second: GraphPart) {
            self.first = first
            self.second = second
        }
    }

    @Test func graphScopedInstanceFromAFailedResolveIsNotReused() throws {
        let made = Collected<GraphPart>()
        let failNext = Counter()
        let container = Container()
        container.register(GraphPart.self) { r in
            let part = GraphPart(graph: try r.require(GraphIdentifier.self))
            made.append(part)
            return part
        }
        container.register(PartPair.self) { r in
            let first = try r.require(GraphPart.self)
            if failNext.increment() == 1 { throw EngineTrouble(description: "the second part is out of stock") }
            return PartPair(first: first, second: try r.require(GraphPart.self))
        }

        let error = try #require(throws: ResolutionError.self) { try container.require(PartPair.self) }
        let pair = try container.require(PartPair.self)

        #expect(error.reason == .factoryFailed)
        let parts = made.values
        #expect(parts.count == 2)
        #expect(pair.first === pair.second)
        #expect(pair.first === parts.last)
        #expect(pair.first !== parts.first)
        #expect(parts.first?.graph != parts.last?.graph)
    }

    @Test func failedCycleLeavesTheThreadReadyForTheNextGraph() throws {
        let container = Container()
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }
        container.register(Engine.self) { r in
            _ = try r.require(Car.self)
            return Engine()
        }
        container.register(GraphPart.self) { r in GraphPart(graph: try r.require(GraphIdentifier.self)) }
        container.register(PartPair.self) { r in
            PartPair(first: try r.require(GraphPart.self), second: try r.require(GraphPart.self))
        }

        #expect(throws: ResolutionError.self) { try container.require(Car.self) }
        let first = try container.require(PartPair.self)
        let second = try container.require(PartPair.self)

        #expect(first.first === first.second)
        #expect(first.first !== second.first)
        #expect(first.first.graph != second.first.graph)
        #expect(throws: ResolutionError.self) { try container.require(GraphIdentifier.self) }
    }

    @Test func failedSingletonBuildDoesNotBlockOtherThreads() throws {
        let factoryCalls = Counter()
        let container = Container()
        container.register(Singleton.self) { _ in
            if factoryCalls.increment() == 1 { throw EngineTrouble(description: "first build fails") }
            return Singleton()
        }
        .inObjectScope(.container)

        #expect(throws: ResolutionError.self) { try container.require(Singleton.self) }
        let built = Collected<Singleton>()
        let thread = runOnThread {
            if let singleton = container.resolve(Singleton.self) { built.append(singleton) }
        }

        #expect(thread.wait(seconds: 10), "a failed build left its claim behind")
        #expect(built.values.count == 1)
        #expect(factoryCalls.value == 2)
    }
}
