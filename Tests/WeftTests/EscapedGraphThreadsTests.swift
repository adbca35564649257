import Dispatch
import Foundation
import Testing
import Weft

/// A graph that can be named from outside (a factory resolved a `Lazy` or the `GraphIdentifier`) may be resolved
/// in from other threads while it is still being made: a `Lazy` read on another thread makes its instance in the
/// graph it was resolved in. A graph-scoped service is still made once per graph, and handed out complete.
@Suite(hangLimit) struct EscapedGraphThreadsTests {
    final class Engine: @unchecked Sendable {
        var started = false
    }
    final class Car: @unchecked Sendable {
        let engine: Engine
        let engineOnOtherThread: Engine?
        init(engine: Engine, engineOnOtherThread: Engine?) {
            self.engine = engine
            self.engineOnOtherThread = engineOnOtherThread
        }
    }

    /// Registers `Car`, whose factory hands its `Lazy<Engine>` to another thread, which reads it at once, and then
    /// resolves `Engine` itself; `readFirst`: the other thread's read begins the engine, otherwise the factory's.
    func register(in container: Container, readFirst: Bool, engineEntered: DispatchSemaphore) {
        container.register(Car.self) { r in
            let lazy = try r.require(Lazy<Engine>.self)
            let read = Collected<Engine>()
            let go = DispatchSemaphore(value: 0)
            let reader = runOnThread {
                go.wait()
                if let engine = try? lazy.get() { read.append(engine) }
            }
            go.signal()
            // The other thread is in the engine's factory now (or this one will be, and the reader comes to it).
            if readFirst { engineEntered.wait() }
            let engine = try r.require(Engine.self)
            _ = reader.wait(seconds: 10)
            return Car(engine: engine, engineOnOtherThread: read.values.first)
        }
    }

    @Test(arguments: [true, false])
    func aGraphScopedServiceReadThroughALazyOnAnotherThreadIsMadeOnceForItsGraph(readFirst: Bool) throws {
        let container = Container()
        let engines = Counter()
        let engineEntered = DispatchSemaphore(value: 0)
        container.register(Engine.self) { _ in
            engines.increment()
            engineEntered.signal()
            // Long enough for the other thread to ask for the engine meanwhile.
            Thread.sleep(forTimeInterval: 0.05)
            return Engine()
        }
        register(in: container, readFirst: readFirst, engineEntered: engineEntered)

        let car = try container.require(Car.self)
        #expect(engines.value == 1)
        #expect(car.engineOnOtherThread === car.engine)
    }

    @Test func aGraphScopedServiceReadThroughALazyOnAnotherThreadIsHandedOutOnceItsCallbacksRan() throws {
        let container = Container()
        let engineEntered = DispatchSemaphore(value: 0)
        container.register(Engine.self) { _ in Engine() }
            .initCompleted { _, engine in
                engineEntered.signal()
                Thread.sleep(forTimeInterval: 0.05)
                engine.started = true
            }
        final class Seen: @unchecked Sendable {
            var started: Bool?
            var engine: Engine?
            var reader: RunningThread?
        }
        let seen = Seen()
        // The engine's callback runs once the car's factory returned: the reader, started by that factory, reads
        // the lazy engine while the callback runs.
        container.register(Car.self) { r in
            let lazy = try r.require(Lazy<Engine>.self)
            seen.reader = runOnThread {
                engineEntered.wait()
                seen.engine = try? lazy.get()
                seen.started = seen.engine?.started
            }
            return Car(engine: try r.require(Engine.self), engineOnOtherThread: nil)
        }

        let car = try container.require(Car.self)
        #expect(seen.reader?.wait(seconds: 10) == true)
        #expect(seen.engine === car.engine)
        #expect(seen.started == true)
    }

    @Test func graphsThatCanBeNamedFromOutsideDoNotWaitForEachOthersInstances() throws {
        // Two graphs, each resolving a Lazy, on two threads: each makes its own engine, at the same time.
        let container = Container()
        let both = StartBarrier(count: 2)
        let metAtOnce = Counter()
        container.register(Engine.self) { _ in
            if both.arriveAndWait(seconds: 2) { metAtOnce.increment() }
            return Engine()
        }
        container.register(Car.self) { r in
            _ = try r.require(Lazy<Engine>.self)
            return Car(engine: try r.require(Engine.self), engineOnOtherThread: nil)
        }
        let cars = Collected<Car>()
        runOnThreads(2) { _ in
            if let car = try? container.require(Car.self) { cars.append(car) }
        }
        #expect(metAtOnce.value == 2)
        #expect(cars.values.count == 2)
        #expect(cars.values.first?.engine !== cars.values.last?.engine)
    }

    /// A graph-scoped service whose `deinit` resolves it again, as a cache that refills itself would.
    final class Ticket: @unchecked Sendable {
        weak var container: Container?
        let refills: Bool
        init(container: Container?, refills: Bool) {
            self.container = container
            self.refills = refills
        }
        deinit {
            if refills { _ = container?.resolve(Ticket.self, argument: false) }
        }
    }

    @Test func anInstanceLetGoOfWhileAnotherGraphEndsRunsItsDeinitOutsideTheRegistrationsLock() {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }
        container.register(Ticket.self) { [weak container] (r, refills: Bool) in
            // The graph can be named from outside: its storage keeps the ticket for it, weakly once it ends.
            _ = try r.require(Lazy<Engine>.self)
            return Ticket(container: container, refills: refills)
        }
        let missing = Counter()
        // Each graph that ends looks at the tickets other graphs left in the storage while their threads let go
        // of them: the look must not be what releases one, under the registration's lock, which the ticket's
        // deinit then waits for (a deadlock in three of ten runs before the fix).
        runOnThreads(8, seconds: 20) { index in
            for round in 0..<lighterUnderSanitizer(5_000) {
                if container.resolve(Ticket.self, argument: (round + index) % 2 == 0) == nil { missing.increment() }
            }
        }
        #expect(missing.value == 0)
    }
}
