import Dispatch
import Foundation
import Testing
import Weft

/// Thread-safety claims of the container, on real threads started together.
@Suite struct ConcurrencyTests {
    @Test func manyThreadsRegisterAndResolveAtOnce() {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }
        let failures = Counter()
        runOnThreads(8) { thread in
            for index in 0..<300 {
                container.register(Engine.self, name: "engine-\(thread)-\(index)") { _ in Engine() }
                if container.resolve(Engine.self) == nil { failures.increment() }
                if container.resolve(Engine.self, name: "engine-\(thread)-\(index)") == nil { failures.increment() }
            }
        }
        #expect(failures.value == 0)
        #expect(container.hasAnyRegistration(of: Engine.self, name: "engine-7-299"))
    }

    @Test func typesForwardedOnManyThreadsFromANewContainersFirstRegistrationsAllResolve() {
        // The first registrations race to make the weak reference to the container that they all share.
        for _ in 0..<20 {
            let container = Container()
            let failures = Counter()
            runOnThreads(4) { thread in
                for index in 0..<25 {
                    let name = "wheel-\(thread)-\(index)"
                    container.register(Wheel.self, name: name) { _ in Wheel() }.implements(AnyObject.self, name: name)
                    if container.resolve(AnyObject.self, name: name) == nil { failures.increment() }
                }
            }
            #expect(failures.value == 0)
        }
    }

    @Test func replacingRegistrationsWhileOtherThreadsResolveThemIsSafe() {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }.inObjectScope(.container)
        container.register(Wheel.self) { _ in Wheel() }
        let failures = Counter()
        runOnThreads(4) { thread in
            for _ in 0..<500 {
                if thread == 0 {
                    container.register(Engine.self) { _ in Engine() }.inObjectScope(.container)
                    container.register(Wheel.self) { _ in Wheel() }.inObjectScope(.transient)
                } else {
                    if container.resolve(Engine.self) == nil { failures.increment() }
                    if container.resolve(Wheel.self) == nil { failures.increment() }
                }
            }
        }
        #expect(failures.value == 0)
    }

    @Test func containerScopedServiceIsBuiltOnceUnderContention() {
        let calls = Counter()
        let container = Container()
        container.register(Engine.self) { _ in
            calls.increment()
            Thread.sleep(forTimeInterval: 0.01)
            return Engine()
        }
        .inObjectScope(.container)
        let seen = Collected<Engine>()
        runOnThreads(16) { _ in
            if let engine = container.resolve(Engine.self) { seen.append(engine) }
        }
        #expect(calls.value == 1)
        #expect(seen.values.count == 16)
        #expect(seen.values.allSatisfy { $0 === seen.values.first })
    }

    @Test(arguments: [false, true])
    func slowFactoryDelaysOnlyCallersOfThatService(synchronized: Bool) throws {
        let container = Container()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        container.register(Engine.self) { _ in
            entered.signal()
            release.wait()
            return Engine()
        }
        .inObjectScope(.container)
        container.register(Wheel.self) { _ in Wheel() }.inObjectScope(.container)
        container.register(Radio.self) { _ in Radio() }
        let resolver: any Resolver = synchronized ? container.synchronize() : container

        let slowCaller = runOnThread { _ = resolver.resolve(Engine.self) }
        entered.wait()
        let secondSlowCaller = runOnThread { _ = resolver.resolve(Engine.self) }

        // While the Engine factory is blocked, unrelated services resolve at once.
        let unrelated = runOnThread {
            _ = resolver.resolve(Wheel.self)
            _ = resolver.resolve(Radio.self)
        }
        #expect(unrelated.wait(seconds: 5), "an unrelated resolve waited for the slow factory")
        #expect(!secondSlowCaller.wait(seconds: 0.2), "a second caller of the slow service did not wait for it")
        release.signal()
        #expect(slowCaller.wait(seconds: 5))
        #expect(secondSlowCaller.wait(seconds: 5))
    }

    @Test func twoThreadsResolvingBothEndsOfAContainerScopedCycleNeverDeadlock() {
        for _ in 0..<1_000 {
            let parentCalls = Counter()
            let childCalls = Counter()
            let arrived = Counter()
            let container = Container()
            // Both factories wait for each other, so both threads are inside the cycle at the same time.
            container.register(CycleParent.self) { _ in
                parentCalls.increment()
                waitUntilBothArrive(arrived, seconds: 0.05)
                return CycleParent()
            }
            .inObjectScope(.container)
            .initCompleted { r, parent in parent.child = r.resolve(CycleChild.self) }
            container.register(CycleChild.self) { _ in
                childCalls.increment()
                waitUntilBothArrive(arrived, seconds: 0.05)
                return CycleChild()
            }
            .inObjectScope(.container)
            .initCompleted { r, child in child.parent = r.resolve(CycleParent.self) }

            let start = DispatchSemaphore(value: 0)
            let parentBox = Collected<CycleParent>()
            let childBox = Collected<CycleChild>()
            let first = runOnThread {
                start.wait()
                if let parent = container.resolve(CycleParent.self) { parentBox.append(parent) }
            }
            let second = runOnThread {
                start.wait()
                if let child = container.resolve(CycleChild.self) { childBox.append(child) }
            }
            start.signal()
            start.signal()
            let finished = first.wait(seconds: 10) && second.wait(seconds: 10)
            #expect(finished, "deadlock resolving the two ends of a cycle")
            guard finished, let parent = parentBox.values.first, let child = childBox.values.first else {
                Issue.record("a resolve failed")
                return
            }
            #expect(parentCalls.value == 1)
            #expect(childCalls.value == 1)
            #expect(parent.child === child)
            #expect(child.parent === parent)
        }
    }

    @Test func initializerCycleAcrossThreadsFailsInsteadOfDeadlocking() {
        for _ in 0..<100 {
            let container = Container()
            let arrived = Counter()
            container.register(CycleParent.self) { r in
                waitUntilBothArrive(arrived)
                return CycleParent(child: try r.require(CycleChild.self))
            }
            .inObjectScope(.container)
            container.register(CycleChild.self) { r in
                waitUntilBothArrive(arrived)
                return CycleChild(parent: try r.require(CycleParent.self))
            }
            .inObjectScope(.container)
            let errors = Collected<ResolutionError>()
            let first = runOnThread {
                do { _ = try container.require(CycleParent.self) } catch let error as ResolutionError {
                    errors.append(error)
                } catch {}
            }
            let second = runOnThread {
                do { _ = try container.require(CycleChild.self) } catch let error as ResolutionError {
                    errors.append(error)
                } catch {}
            }
            #expect(first.wait(seconds: 10) && second.wait(seconds: 10), "deadlock on an initializer cycle")
            #expect(errors.values.count == 2)
            #expect(errors.values.allSatisfy { $0.reason == .circularDependency })
        }
    }

    @Test func synchronizedResolverRunsEachFactoryOnOneThreadAtATime() {
        let running = Counter()
        let overlaps = Counter()
        let container = Container()
        container.register(Engine.self) { _ in
            if running.increment() > 1 { overlaps.increment() }
            Thread.sleep(forTimeInterval: 0.001)
            running.decrement()
            return Engine()
        }
        let resolver = container.synchronize()
        runOnThreads(8) { _ in
            for _ in 0..<20 { _ = resolver.resolve(Engine.self) }
        }
        #expect(overlaps.value == 0)
    }

    @Test func graphsOnDifferentThreadsAreIndependent() {
        let container = Container()
        container.register(Wheel.self) { _ in Wheel() }
        let rounds = lighterUnderSanitizer(50)
        // Every Car factory waits, between its two wheels, for the other threads' factories: the graphs of all
        // threads are open at the same time, so a graph-scoped instance leaking between them would show.
        let barriers = (0..<rounds).map { _ in StartBarrier(count: 4) }
        container.register(Car.self) { (r, round: Int) in
            let front = try r.require(Wheel.self)
            barriers[round].arriveAndWait(seconds: 2)
            return Car(front: front, back: try r.require(Wheel.self))
        }
        let cars = Collected<(round: Int, car: Car)>()
        runOnThreads(4) { _ in
            for round in 0..<rounds {
                if let car = container.resolve(Car.self, argument: round) { cars.append((round, car)) }
            }
        }

        #expect(cars.values.count == 4 * rounds)
        #expect(cars.values.allSatisfy { $0.car.front === $0.car.back }, "one graph did not share its Wheel")
        for round in 0..<rounds {
            let wheels = Set(cars.values.filter { $0.round == round }.map { ObjectIdentifier($0.car.front) })
            #expect(wheels.count == 4, "graphs resolved at the same time on different threads shared a Wheel")
        }
    }
}

// MARK: - Fixtures

/// Lets two factories start together: each arrival waits (up to a second) for the other one.
private func waitUntilBothArrive(_ arrived: Counter, seconds: Double = 1) {
    arrived.increment()
    let deadline = Date().addingTimeInterval(seconds)
    while arrived.value < 2, Date() < deadline { usleep(100) }
}

private final class Engine: Sendable {}
private final class Wheel: Sendable {}
private final class Radio: Sendable {}
private final class Car: Sendable {
    let front: Wheel
    let back: Wheel
    init(front: Wheel, back: Wheel) {
        self.front = front
        self.back = back
    }
}

private final class CycleParent: @unchecked Sendable {
    var child: CycleChild?
    init(child: CycleChild? = nil) { self.child = child }
}

private final class CycleChild: @unchecked Sendable {
    weak var parent: CycleParent?
    init(parent: CycleParent? = nil) { self.parent = parent }
}
