import Foundation
import Weft

/// Registrations churned by the hundred thousand, and everything at once on many threads: memory stays flat,
/// replaced registrations are freed, and nothing crashes, hangs or fails with an unexpected error.
enum ChurnScenarios {
    final class Payload: @unchecked Sendable {
        let bytes = [UInt8](repeating: 1, count: 256)
    }

    final class Weakly: @unchecked Sendable {
        weak var entry: AnyObject?
        init(_ entry: AnyObject) { self.entry = entry }
    }

    static let all: [Scenario] = [reregistrationMemory, chaos]

    /// Whether this process runs under a sanitizer, whose shadow memory makes resident memory meaningless.
    static var sanitized: Bool {
        #if os(Linux)
            return dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil
        #else
            return false
        #endif
    }

    static let reregistrationMemory = Scenario(
        name: "reregistration-memory",
        summary: "100,000 re-registrations of one key, then 1,000 x (removeAll + 100 registrations), with resolves "
            + "on another thread: replaced registrations are freed and resident memory stays flat"
    ) { context in
        let container = Container()
        let payload = Payload()
        let sampled = Collected<Weakly>()
        let stop = Tally()
        let reader = Thread {
            while stop.count("stop") == 0 { _ = container.resolve(Payload.self) }
            stop.add("stopped")
        }
        reader.start()
        func phase(_ label: String, _ body: () -> Void) {
            let before = residentBytes()
            body()
            // A fresh registration retires nothing: memory is sampled as the churn left it.
            container.register(Int.self) { _ in 0 }
            if !sanitized, let before, let after = residentBytes() {
                let grown = (after - before) >> 20
                context.check(grown <= 8, "\(label): resident memory grew by \(grown) MiB")
                context.measured.append(" \(label): resident memory \(grown < 0 ? "" : "+")\(grown) MiB")
            }
        }
        for round in 0..<10_000 {
            container.register(Payload.self) { _ in payload }.inObjectScope(.graph)
            _ = round
        }
        phase("100,000 re-registrations") {
            for round in 0..<100_000 {
                let entry = container.register(Payload.self) { _ in payload }
                if round % 100 == 0 { sampled.append(Weakly(entry)) }
            }
        }
        phase("1,000 x removeAll + 100 registrations") {
            for round in 0..<1_000 {
                container.removeAll()
                for name in 0..<100 {
                    let entry = container.register(Payload.self, name: "p\(name)") { _ in payload }
                    if name == 0, round % 10 == 0 { sampled.append(Weakly(entry)) }
                }
                container.register(Payload.self) { _ in payload }
            }
        }
        stop.add("stop")
        while stop.count("stopped") == 0 { usleep(1_000) }
        let alive = sampled.values.filter { $0.entry != nil }.count
        context.check(
            alive * 10 <= sampled.values.count,
            "\(alive) of \(sampled.values.count) sampled replaced registrations are still alive")
        context.iterations = 200_000
    }

    static let chaos = Scenario(
        name: "chaos",
        summary: "8 threads register, replace, resolve, reset, remove, make child containers and scopes at random "
            + "on one container tree: no crash, no hang, only ResolutionError and TeardownError"
    ) { context in
        while context.hasTime {
            let root = Container()
            let scopes: [ObjectScope] = [.transient, .graph, .container, .weak]
            let unexpected = Tally()
            var seeds: [SeededRandom] = []
            for _ in 0..<8 { seeds.append(context.random.split()) }
            let plans = seeds
            let finished = onThreads(8) { thread in
                var random = plans[thread]
                var child = Container(parent: root)
                for _ in 0..<300 {
                    let name = "s\(random.below(6))"
                    let other = "s\(random.below(6))"
                    do {
                        switch random.below(12) {
                        case 0, 1:
                            let scope = scopes[random.below(scopes.count)]
                            root.register(Payload.self, name: name) { r in
                                _ = r.resolve(Payload.self, name: other)
                                return Payload()
                            }
                            .inObjectScope(scope)
                        case 2: child.register(Payload.self, name: name) { _ in Payload() }.inObjectScope(.container)
                        case 3: root.resetObjectScope(.container)
                        case 4: child.removeAll()
                        case 5: child = Container(parent: root)
                        case 6:
                            let scope = child.makeScope()
                            _ = scope.resolve(Payload.self, name: name)
                            _ = scope.endSynchronouslyForStress()
                        case 7: _ = try root.resolve(Lazy<Payload>.self, name: name)?.get()
                        case 8: _ = try child.require(Payload.self, name: name)
                        default: _ = root.resolve(Payload.self, name: name)
                        }
                    } catch is ResolutionError {
                    } catch is TeardownError {
                    } catch {
                        unexpected.note("\(type(of: error)): \(error)")
                    }
                }
            }
            context.check(finished, "chaos threads did not finish")
            for note in unexpected.noted { context.violation("unexpected error \(note)") }
            context.iterations += 8 * 300
        }
    }
}

extension Container {
    /// Ends a scope from a plain thread, waiting for it.
    func endSynchronouslyForStress() -> Bool {
        let done = DispatchSemaphore(value: 0)
        let scope = self
        Task.detached {
            try? await scope.end(timeout: 10)
            done.signal()
        }
        return done.wait(timeout: .now() + 30) == .success
    }
}
