import Foundation
import Weft

/// Shared instances under threads: `.weak` instances dying while they are read, one singleton per registration,
/// and no instance seen before its `initCompleted` callbacks ran, sync or async.
enum SharingScenarios {
    final class Widget {}

    /// An instance whose `initCompleted` sets `configured`; readers must never see it false.
    final class Configured: @unchecked Sendable {
        private let lock = NSLock()
        private var flag = false
        let serial: Int
        init(serial: Int) { self.serial = serial }
        var configured: Bool {
            get { lock.withLock { flag } }
            set { lock.withLock { flag = newValue } }
        }
    }

    static let all: [Scenario] = [weakUnderThreads, singletonOnce, asyncSingletonComplete, tasksAwaitThreadBuilds]

    static let weakUnderThreads = Scenario(
        name: "weak-under-threads",
        summary: "8 threads resolve .weak and WeakStorage-based services whose instances die as they are read"
    ) { context in
        let scopes: [ObjectScope] = [
            .weak,
            ObjectScope(storageFactory: WeakStorage.init, description: "weakOnly"),
            ObjectScope(
                storageFactory: WeakStorage.init, description: "weakOverTransient", parent: ObjectScope.transient),
        ]
        while context.hasTime {
            let scope = scopes[context.random.below(scopes.count)]
            let container = Container()
            container.register(Widget.self) { _ in Widget() }.inObjectScope(scope)
            let misses = Tally()
            let finished = onThreads(8) { _ in
                for _ in 0..<2_000 where container.resolve(Widget.self) == nil { misses.add("nil") }
            }
            context.check(finished, "threads resolving \(scope) did not finish")
            context.check(misses.count("nil") == 0, "\(misses.count("nil")) resolves of \(scope) returned nil")
            context.iterations += 1
        }
    }

    static let singletonOnce = Scenario(
        name: "singleton-once",
        summary: "threads race for .container singletons with slow factories and callbacks: one instance each, "
            + "never seen unconfigured"
    ) { context in
        while context.hasTime {
            let container = Container()
            let made = Tally()
            let services = 1 + context.random.below(4)
            let delay = UInt32(context.random.below(300))
            for name in 0..<services {
                container.register(Configured.self, name: "s\(name)") { _ in
                    if delay > 0 { usleep(delay) }
                    return Configured(serial: made.add("s\(name)"))
                }
                .inObjectScope(.container)
                .initCompleted { _, instance in
                    if delay > 0 { usleep(delay) }
                    instance.configured = true
                }
            }
            let seen = Tally()
            let finished = onThreads(8) { thread in
                for round in 0..<20 {
                    let name = "s\((thread + round) % services)"
                    guard let instance = container.resolve(Configured.self, name: name) else {
                        seen.note("resolve of \(name) returned nil")
                        continue
                    }
                    if !instance.configured { seen.note("\(name) #\(instance.serial) handed out unconfigured") }
                    if instance.serial != 1 { seen.note("\(name) made \(instance.serial) times") }
                }
            }
            context.check(finished, "singleton threads did not finish")
            for note in seen.noted { context.violation(note) }
            for name in 0..<services {
                context.check(made.count("s\(name)") == 1, "s\(name) made \(made.count("s\(name)")) times")
            }
            context.iterations += 1
        }
    }

    static let asyncSingletonComplete = Scenario(
        name: "async-singleton-complete",
        summary: "tasks and threads ask for an async .container service while its callbacks run: nobody gets it "
            + "unconfigured, one instance per success, failed callbacks leave nothing behind"
    ) { context in
        while context.hasTime {
            let container = Container()
            let made = Tally()
            let failFirst = context.random.below(2) == 0
            container.register(Configured.self) { (_: AsyncResolver) async in
                Configured(serial: made.add("made"))
            }
            .inObjectScope(.container)
            .initCompleted { _, instance in
                usleep(200)
                if failFirst, instance.serial == 1 { throw CancellationError() }
                instance.configured = true
            }
            let seen = Tally()
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                Task.detached {
                    defer { group.leave() }
                    if let instance = try? await container.async.require(Configured.self) {
                        if !instance.configured { seen.note("task got #\(instance.serial) unconfigured") }
                        seen.add("serial \(instance.serial)")
                    }
                }
            }
            let threads = onThreads(4) { _ in
                for _ in 0..<50 {
                    if let instance = try? container.require(Configured.self), !instance.configured {
                        seen.note("thread got #\(instance.serial) unconfigured")
                    }
                }
            }
            let tasks = group.wait(timeout: .now() + 60) == .success
            context.check(threads && tasks, "async singleton readers did not finish")
            for note in seen.noted { context.violation(note) }
            if failFirst { context.check(seen.count("serial 1") == 0, "the instance whose callbacks threw was used") }
            context.iterations += 1
        }
    }

    static let tasksAwaitThreadBuilds = Scenario(
        name: "tasks-await-thread-builds",
        summary: "threads build .container singletons with slow synchronous factories while tasks, some of them "
            + "cancelled, await them: one instance each, configured, and every task returns"
    ) { context in
        while context.hasTime {
            let container = Container()
            let made = Tally()
            let delay = UInt32(100 + context.random.below(2_000))
            container.register(Configured.self) { _ in
                usleep(delay)
                return Configured(serial: made.add("made"))
            }
            .inObjectScope(.container)
            .initCompleted { _, instance in instance.configured = true }
            let seen = Tally()
            let group = DispatchGroup()
            var tasks: [Task<Void, Never>] = []
            for _ in 0..<16 {
                group.enter()
                tasks.append(
                    Task.detached {
                        defer { group.leave() }
                        do {
                            let instance = try await container.async.require(Configured.self)
                            if !instance.configured { seen.note("task got #\(instance.serial) unconfigured") }
                            if instance.serial != 1 { seen.note("task got instance #\(instance.serial)") }
                        } catch is CancellationError {
                            seen.add("cancelled")
                        } catch {
                            seen.note("task failed: \(error)")
                        }
                    })
            }
            let cancelled = context.random.below(4)
            for task in tasks.prefix(cancelled) { task.cancel() }
            let threads = onThreads(2) { _ in
                for _ in 0..<10 {
                    guard let instance = try? container.require(Configured.self), instance.configured else {
                        seen.note("a thread got no configured instance")
                        continue
                    }
                    if instance.serial != 1 { seen.note("thread got instance #\(instance.serial)") }
                }
            }
            let finished = group.wait(timeout: .now() + 60) == .success
            context.check(threads && finished, "tasks awaiting a thread's build did not finish")
            for note in seen.noted { context.violation(note) }
            context.check(made.count("made") == 1, "made \(made.count("made")) instances")
            context.iterations += 1
        }
    }
}
