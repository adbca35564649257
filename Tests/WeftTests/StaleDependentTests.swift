import Foundation
import Testing
import Weft

/// A singleton being built while one of its dependencies is replaced or reset is not kept: the resolve that
/// built it gets it, and the next resolve builds a new one with the new dependency.
@Suite struct StaleDependentTests {
    final class Clock: Sendable {
        let id: Int
        init(id: Int) { self.id = id }
    }
    final class Scheduler: Sendable {
        let clock: Clock
        init(clock: Clock) { self.clock = clock }
    }

    /// A container with a `.container` Clock (ids from `clockID`) and a `.container` Scheduler whose first build
    /// signals `resolved` once it holds its Clock and waits for `proceed`.
    static func gatedScheduler(
        clockID: @escaping @Sendable () -> Int,
        resolved: DispatchSemaphore,
        proceed: DispatchSemaphore
    ) -> (Container, builds: Counter) {
        let container = Container()
        container.register(Clock.self) { _ in Clock(id: clockID()) }.inObjectScope(.container)
        let builds = Counter()
        container.register(Scheduler.self) { r in
            let clock = try r.require(Clock.self)
            if builds.increment() == 1 {
                resolved.signal()
                proceed.wait()
            }
            return Scheduler(clock: clock)
        }
        .inObjectScope(.container)
        return (container, builds)
    }

    @Test func dependencyReplacedOnAnotherThreadWhileTheSingletonIsBuiltIsNotKeptInIt() throws {
        let resolved = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let (container, builds) = Self.gatedScheduler(clockID: { 1 }, resolved: resolved, proceed: proceed)

        let first = Collected<Int>()
        let builder = runOnThread {
            if let scheduler = try? container.require(Scheduler.self) { first.append(scheduler.clock.id) }
        }
        resolved.wait()
        container.register(Clock.self) { _ in Clock(id: 2) }.inObjectScope(.container)
        proceed.signal()
        #expect(builder.wait(seconds: 20))

        // The resolve in flight began before the replacement and keeps what it built...
        #expect(first.values == [1])
        // ...but the container does not: the next resolve builds a Scheduler with the new Clock, once.
        let after = try container.require(Scheduler.self)
        #expect(after.clock.id == 2)
        #expect(try container.require(Scheduler.self) === after)
        #expect(builds.value == 2)
    }

    @Test func dependencyReplacedInsideTheSingletonsOwnFactoryIsNotKeptInIt() throws {
        let container = Container()
        container.register(Clock.self) { _ in Clock(id: 1) }.inObjectScope(.container)
        let builds = Counter()
        container.register(Scheduler.self) { [unowned container] r in
            let clock = try r.require(Clock.self)
            if builds.increment() == 1 {
                container.register(Clock.self) { _ in Clock(id: 2) }.inObjectScope(.container)
            }
            return Scheduler(clock: clock)
        }
        .inObjectScope(.container)

        #expect(try container.require(Scheduler.self).clock.id == 1)
        let rebuilt = try container.require(Scheduler.self)
        #expect(rebuilt.clock.id == 2)
        #expect(try container.require(Scheduler.self) === rebuilt)
    }

    @Test func dependencyResetWhileTheSingletonIsBuiltIsNotKeptInIt() throws {
        let clocks = Counter()
        let resolved = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let (container, _) = Self.gatedScheduler(
            clockID: { clocks.increment() }, resolved: resolved, proceed: proceed)

        let builder = runOnThread { _ = try? container.require(Scheduler.self) }
        resolved.wait()
        container.resetObjectScope(.container, serviceType: Clock.self)
        proceed.signal()
        #expect(builder.wait(seconds: 20))

        let after = try container.require(Scheduler.self)
        #expect(after.clock.id == 2)
        #expect(after.clock === (try container.require(Clock.self)))
    }

    @Test func waitersOfAStaleBuildGetTheRebuiltSingleton() throws {
        let resolved = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let (container, _) = Self.gatedScheduler(clockID: { 1 }, resolved: resolved, proceed: proceed)

        let builder = runOnThread { _ = try? container.require(Scheduler.self) }
        resolved.wait()
        container.register(Clock.self) { _ in Clock(id: 2) }.inObjectScope(.container)
        // This thread waits for the first build; when it ends unkept, the waiter builds with the new Clock.
        let waited = Collected<Int>()
        let waiter = runOnThread {
            if let scheduler = try? container.require(Scheduler.self) { waited.append(scheduler.clock.id) }
        }
        Thread.sleep(forTimeInterval: 0.05)
        proceed.signal()
        #expect(builder.wait(seconds: 20) && waiter.wait(seconds: 20))
        #expect(waited.values == [2])
    }
}
