import Foundation
import Testing
import Weft

/// A shared instance an async factory is making while one of its dependencies is reset or replaced is not kept,
/// as with a synchronous factory: the resolve that made it gets it, the tasks waiting for it and the next resolves
/// get one made anew with the new dependency. The claim is the registration's own, the one threads take: a thread
/// asking while a task holds it is told the service needs async code, and gets the instance once it is made.
@Suite struct AsyncStaleBuildTests {
    typealias Clock = StaleDependentTests.Clock
    typealias Scheduler = StaleDependentTests.Scheduler
    typealias Gate = AsyncWaitingTests.Gate

    /// A container with a `.container` Clock (ids from `clockID`) and a Scheduler in `scope` (`.container`
    /// unless given) with an async factory whose first run opens `entered` once it holds its Clock and waits
    /// for `release`.
    static func gatedScheduler(
        clockID: @escaping @Sendable () -> Int,
        entered: Gate,
        release: Gate,
        scope: ObjectScope = .container
    ) -> (Container, builds: Counter) {
        let container = Container()
        container.register(Clock.self) { _ in Clock(id: clockID()) }.inObjectScope(.container)
        let builds = Counter()
        container.register(Scheduler.self) { (r: AsyncResolver) async throws in
            let clock = try await r.require(Clock.self)
            if builds.increment() == 1 {
                entered.openGate()
                await release.wait()
            }
            return Scheduler(clock: clock)
        }
        .inObjectScope(scope)
        return (container, builds)
    }

    @Test(hangLimit)
    func dependencyResetWhileAnAsyncSingletonIsMadeIsNotKeptInIt() async throws {
        let clocks = Counter()
        let (entered, release) = (Gate(), Gate())
        let (container, builds) = Self.gatedScheduler(
            clockID: { clocks.increment() }, entered: entered, release: release)

        let builder = Task { try await container.async.require(Scheduler.self) }
        await entered.wait()
        container.resetObjectScope(.container, serviceType: Clock.self)
        release.openGate()

        // The resolve in flight keeps what it made...
        #expect(try await builder.value.clock.id == 1)
        // ...but the container does not: the next resolve makes a Scheduler with the new Clock, once.
        let after = try await container.async.require(Scheduler.self)
        #expect(after.clock.id == 2)
        #expect(after.clock === (try container.require(Clock.self)))
        #expect(try await container.async.require(Scheduler.self) === after)
        #expect(builds.value == 2)
    }

    @Test(hangLimit)
    func dependencyReplacedWhileAnAsyncSingletonIsMadeIsNotKeptInIt() async throws {
        let (entered, release) = (Gate(), Gate())
        let (container, _) = Self.gatedScheduler(clockID: { 1 }, entered: entered, release: release)

        let builder = Task { try await container.async.require(Scheduler.self) }
        await entered.wait()
        container.register(Clock.self) { _ in Clock(id: 2) }.inObjectScope(.container)
        release.openGate()

        #expect(try await builder.value.clock.id == 1)
        #expect(try await container.async.require(Scheduler.self).clock.id == 2)
        // Synchronous code sees the rebuilt one too.
        #expect(try container.require(Scheduler.self).clock.id == 2)
    }

    @Test(hangLimit)
    func tasksWaitingForAStaleAsyncBuildGetTheRebuiltSingleton() async throws {
        let (entered, release) = (Gate(), Gate())
        let (container, builds) = Self.gatedScheduler(clockID: { 1 }, entered: entered, release: release)

        let builder = Task { try await container.async.require(Scheduler.self) }
        await entered.wait()
        container.register(Clock.self) { _ in Clock(id: 2) }.inObjectScope(.container)
        let waiters = (0..<4).map { _ in Task { try await container.async.require(Scheduler.self) } }
        try await Task.sleep(nanoseconds: 50_000_000)
        release.openGate()

        _ = try await builder.value
        var seen: [Scheduler] = []
        for waiter in waiters { seen.append(try await waiter.value) }
        #expect(seen.allSatisfy { $0.clock.id == 2 })
        #expect(seen.allSatisfy { $0 === seen[0] })
        #expect(builds.value == 2)
    }

    @Test(hangLimit)
    func anAsyncSingletonResetWhileItIsMadeIsMadeAgainForTheNextResolve() async throws {
        let (entered, release) = (Gate(), Gate())
        let (container, builds) = Self.gatedScheduler(clockID: { 1 }, entered: entered, release: release)

        let builder = Task { try await container.async.require(Scheduler.self) }
        await entered.wait()
        container.resetObjectScope(.container)
        release.openGate()

        let first = try await builder.value
        let after = try await container.async.require(Scheduler.self)
        #expect(after !== first)
        #expect(builds.value == 2)
    }

    @Test(hangLimit)
    func tasksOfAScopeWaitingForAStaleScopedBuildGetTheRebuiltInstance() async throws {
        let clocks = Counter()
        let (entered, release) = (Gate(), Gate())
        let (container, builds) = Self.gatedScheduler(
            clockID: { clocks.increment() }, entered: entered, release: release, scope: .scoped)
        let scope = container.makeScope()

        let builder = Task { try await scope.async.require(Scheduler.self) }
        await entered.wait()
        // Waiting before the reset: the build is found stale when it ends, not by a later claim.
        let waiters = (0..<4).map { _ in Task { try await scope.async.require(Scheduler.self) } }
        try await Task.sleep(nanoseconds: 50_000_000)
        container.resetObjectScope(.container, serviceType: Clock.self)
        release.openGate()

        #expect(try await builder.value.clock.id == 1)
        var seen: [Scheduler] = []
        for waiter in waiters { seen.append(try await waiter.value) }
        #expect(seen.allSatisfy { $0.clock.id == 2 })
        #expect(seen.allSatisfy { $0 === seen[0] })
        #expect(try await scope.async.require(Scheduler.self) === seen[0])
        #expect(builds.value == 2)
        try await scope.end()
    }

    @Test(hangLimit)
    func aThreadAskingWhileATaskMakesTheSingletonIsToldItNeedsAsyncThenGetsTheInstance() async throws {
        let (entered, release) = (Gate(), Gate())
        let (container, builds) = Self.gatedScheduler(clockID: { 1 }, entered: entered, release: release)

        let builder = Task { try await container.async.require(Scheduler.self) }
        await entered.wait()
        // The task holds the claim and its factory runs: there is no instance yet, and a thread cannot make one.
        let during = Collected<String>()
        let thread = runOnThread {
            do {
                _ = try container.require(Scheduler.self)
                during.append("got an instance")
            } catch {
                during.append("\(error)")
            }
        }
        #expect(await thread.finished(within: 20))
        #expect(during.values.first?.hasPrefix("[Weft.requiresAsync] The factory of Scheduler is async") == true)
        #expect(during.values.first?.contains("needed a new instance") == true)
        release.openGate()

        let made = try await builder.value
        #expect(try container.require(Scheduler.self) === made)
        #expect(builds.value == 1)
    }
}
