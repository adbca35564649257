import Foundation
import Weft

/// Registrations changing while other threads resolve: no stale dependent survives a replacement, and every
/// thread's lookup cache sees a change made on another thread.
enum InvalidationScenarios {
    final class Clock: Sendable {
        let generation: Int
        init(generation: Int) { self.generation = generation }
    }

    final class Scheduler: Sendable {
        let clock: Clock
        init(clock: Clock) { self.clock = clock }
    }

    static let all: [Scenario] = [replaceDuringBuild, asyncReplaceDuringBuild, cachesSeeChanges]

    static let replaceDuringBuild = Scenario(
        name: "replace-during-build",
        summary: "a Clock is replaced again and again while threads build and read a .container Scheduler; "
            + "afterwards the Scheduler holds the last Clock, made once"
    ) { context in
        while context.hasTime {
            let container = Container()
            let clocksMade = Tally()
            @Sendable func register(_ generation: Int) {
                container.register(Clock.self) { _ in
                    clocksMade.add("g\(generation)")
                    return Clock(generation: generation)
                }
                .inObjectScope(.container)
            }
            register(0)
            let pause = UInt32(context.random.below(100))
            container.register(Scheduler.self) { r in
                let clock = try r.require(Clock.self)
                if pause > 0 { usleep(pause) }
                return Scheduler(clock: clock)
            }
            .inObjectScope(.container)
            let replacements = 20 + context.random.below(30)
            let finished = onThreads(5) { thread in
                if thread == 0 {
                    for generation in 1...replacements {
                        register(generation)
                        usleep(50)
                    }
                } else {
                    for _ in 0..<200 { _ = container.resolve(Scheduler.self) }
                }
            }
            context.check(finished, "replace-during-build threads did not finish")
            let last = container.resolve(Scheduler.self)?.clock.generation
            context.check(
                last == replacements,
                "after \(replacements) replacements the Scheduler holds Clock \(String(describing: last))")
            // Resolves that found a replaced registration just before it was replaced may still make its instance;
            // the registration in place is made once.
            let lastMade = clocksMade.count("g\(replacements)")
            context.check(lastMade == 1, "the last Clock was made \(lastMade) times")
            context.iterations += 1
        }
    }

    static let asyncReplaceDuringBuild = Scenario(
        name: "async-replace-during-build",
        summary: "a Clock is replaced again and again while tasks make and read a .container Scheduler with an "
            + "async factory, and threads read it; afterwards the Scheduler holds the last Clock"
    ) { context in
        while context.hasTime {
            let container = Container()
            @Sendable func register(_ generation: Int) {
                container.register(Clock.self) { _ in Clock(generation: generation) }.inObjectScope(.container)
            }
            register(0)
            let pause = UInt64(context.random.below(100_000))
            container.register(Scheduler.self) { (r: AsyncResolver) async throws in
                let clock = try await r.require(Clock.self)
                if pause > 0 { try await Task.sleep(nanoseconds: pause) }
                return Scheduler(clock: clock)
            }
            .inObjectScope(.container)
            let replacements = 20 + context.random.below(30)
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                Task.detached {
                    defer { group.leave() }
                    for _ in 0..<100 { _ = try? await container.async.require(Scheduler.self) }
                }
            }
            let finished = onThreads(2) { thread in
                if thread == 0 {
                    for generation in 1...replacements {
                        register(generation)
                        usleep(50)
                    }
                } else {
                    // A synchronous resolve finds the instance once a task made it, or fails: never a crash or a hang.
                    for _ in 0..<200 { _ = try? container.require(Scheduler.self) }
                }
            }
            let tasks = group.wait(timeout: .now() + 60) == .success
            context.check(finished && tasks, "async-replace-during-build threads or tasks did not finish")
            let last = Tally()
            group.enter()
            Task.detached {
                defer { group.leave() }
                let scheduler = try? await container.async.require(Scheduler.self)
                last.add("\(scheduler.map { "\($0.clock.generation)" } ?? "none")")
            }
            context.check(group.wait(timeout: .now() + 60) == .success, "the last async resolve did not finish")
            context.check(
                last.count("\(replacements)") == 1,
                "after \(replacements) replacements the async Scheduler holds another Clock")
            context.iterations += 1
        }
    }

    static let cachesSeeChanges = Scenario(
        name: "caches-see-changes",
        summary: "one thread re-registers a value, the other resolves it after each change: it always sees the "
            + "newest registration (per-thread lookup caches)"
    ) { context in
        while context.hasTime {
            let container = Container()
            container.register(Int.self) { _ in 0 }
            let changed = DispatchSemaphore(value: 0)
            let checked = DispatchSemaphore(value: 0)
            let wrong = Tally()
            let rounds = 200
            let finished = onThreads(2) { thread in
                for round in 1...rounds {
                    if thread == 0 {
                        container.register(Int.self) { _ in round }
                        changed.signal()
                        checked.wait()
                    } else {
                        changed.wait()
                        let seen = container.resolve(Int.self)
                        if seen != round { wrong.note("round \(round) resolved \(String(describing: seen))") }
                        checked.signal()
                    }
                }
            }
            context.check(finished, "cache threads did not finish")
            for note in wrong.noted { context.violation(note) }
            context.iterations += rounds
        }
    }
}
