import Foundation
import Testing
import Weft

/// A user-written `InstanceStorage` that keeps one instance per object graph, with the graph-aware methods
/// `instance(inGraph:)`, `setInstance(_:inGraph:)` and `graphResolutionCompleted()` of its own: the container
/// asks it with the graph being resolved and tells it when that graph is complete.
@Suite struct CustomGraphStorageTests {
    /// What the storages of one scope were asked, for the test to read.
    final class StorageLog: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [(graph: GraphIdentifier, instance: Any?)] = []
        private var completions = 0

        var storedGraphs: [GraphIdentifier] { lock.withLock { stored.map(\.graph) } }
        var completed: Int { lock.withLock { completions } }

        func noteStored(_ instance: Any?, in graph: GraphIdentifier) {
            lock.withLock { stored.append((graph, instance)) }
        }
        func noteCompleted() { lock.withLock { completions += 1 } }
    }

    /// Keeps an instance per graph, strongly, and logs what it is told.
    final class PerGraphStorage: InstanceStorage {
        private var instances: [GraphIdentifier: Any] = [:]
        private let log: StorageLog
        /// The instance outside any graph; this storage keeps none.
        var instance: Any? {
            get { nil }
            set {}  // swift-format-ignore
        }

        init(log: StorageLog) { self.log = log }

        func instance(inGraph graph: GraphIdentifier) -> Any? { instances[graph] }

        func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
            instances[graph] = instance
            log.noteStored(instance, in: graph)
        }

        func graphResolutionCompleted() { log.noteCompleted() }
    }

    final class Wheel: Sendable {}

    final class Car: Sendable {
        let front: Wheel
        let back: Wheel
        let graph: GraphIdentifier
        init(front: Wheel, back: Wheel, graph: GraphIdentifier) {
            self.front = front
            self.back = back
            self.graph = graph
        }
    }

    /// `Wheel` in a scope of `PerGraphStorage`s; a transient `Car` with two wheels, which notes the log's
    /// completions between its wheels in `completedWhileBuilding`.
    private func container(log: StorageLog, completedWhileBuilding: Collected<Int> = Collected()) -> Container {
        let scope = ObjectScope(storageFactory: { PerGraphStorage(log: log) }, description: "perGraph")
        let container = Container()
        container.register(Wheel.self) { _ in Wheel() }.inObjectScope(scope)
        container.register(Car.self) { r in
            let front = try r.require(Wheel.self)
            completedWhileBuilding.append(log.completed)
            return Car(front: front, back: try r.require(Wheel.self), graph: try r.require(GraphIdentifier.self))
        }
        .inObjectScope(.transient)
        return container
    }

    @Test func theStorageSharesAnInstanceWithinAGraphAndKeepsOnePerGraph() throws {
        let log = StorageLog()
        let container = container(log: log)

        let first = try container.require(Car.self)
        let second = try container.require(Car.self)

        #expect(first.front === first.back)
        #expect(second.front === second.back)
        #expect(first.front !== second.front)
        #expect(log.storedGraphs == [first.graph, second.graph], "the storage was not told the graph of each resolve")
    }

    @Test func theStorageIsToldWhenEachGraphIsCompleteAndNotBefore() throws {
        let log = StorageLog()
        let whileBuilding = Collected<Int>()
        let container = container(log: log, completedWhileBuilding: whileBuilding)

        _ = try container.require(Car.self)
        let afterFirst = log.completed
        _ = try container.require(Car.self)

        #expect(whileBuilding.values == [0, afterFirst])
        #expect(afterFirst >= 1, "graphResolutionCompleted was not called after the graph")
        #expect(log.completed >= 2 * afterFirst)
    }

    @Test func withObjectGraphFindsWhatTheStorageKeptForThatGraph() throws {
        let log = StorageLog()
        let container = container(log: log)
        let car = try container.require(Car.self)
        _ = try container.require(Car.self)

        let again = container.withObjectGraph(car.graph) { $0.resolve(Wheel.self) }

        #expect(again === car.front)
        #expect(log.storedGraphs.count == 2, "resolving in a kept graph made and stored a new instance")
    }

    @Test func theStorageIsToldWhenAGraphThatFailedIsOver() throws {
        let log = StorageLog()
        let scope = ObjectScope(storageFactory: { PerGraphStorage(log: log) }, description: "perGraph")
        let container = Container()
        container.register(Wheel.self) { _ in Wheel() }.inObjectScope(scope)
        let graphs = Collected<GraphIdentifier>()
        container.register(Car.self) { r in
            _ = try r.require(Wheel.self)
            graphs.append(try r.require(GraphIdentifier.self))
            throw CoreTestError.factoryBroke
        }

        #expect(throws: ResolutionError.self) { try container.require(Car.self) }

        let failed = try #require(graphs.values.first)
        #expect(log.storedGraphs.first == failed)
        #expect(log.completed >= 1, "graphResolutionCompleted was not called after a failed graph")
    }

    @Test func asyncResolvesUseTheSameGraphAwareMethods() async throws {
        let log = StorageLog()
        let scope = ObjectScope(storageFactory: { PerGraphStorage(log: log) }, description: "perGraph")
        let container = Container()
        container.register(Wheel.self) { _ in
            await Task.yield()
            return Wheel()
        }
        .inObjectScope(scope)
        container.register(Car.self) { r in
            Car(
                front: try await r.require(Wheel.self),
                back: try await r.require(Wheel.self),
                graph: try await r.require(GraphIdentifier.self)
            )
        }

        let first = try await container.async.require(Car.self)
        let second = try await container.async.require(Car.self)

        #expect(first.front === first.back)
        #expect(first.front !== second.front)
        #expect(log.storedGraphs == [first.graph, second.graph])
        #expect(log.completed == 2, "each async resolve tells the storage once that its graph completed")
    }
}
