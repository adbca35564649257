// Recursion under stress: cycles that close between threads or through a `Lazy`, and chains deeper than a
// thread's stack allows.
import Foundation
import Weft

/// Cycles that close between threads and through `Lazy`: every thread ends with a circular-dependency error
/// that names the cycle, none hangs.
enum CycleScenarios {
    final class Warp: Sendable {
        let shuttle: Shuttle
        init(shuttle: Shuttle) { self.shuttle = shuttle }
    }

    final class Shuttle: Sendable {
        let warp: Warp
        init(warp: Warp) { self.warp = warp }
    }

    final class Box<Value>: @unchecked Sendable {
        var value: Value?
    }

    static let all: [Scenario] = [initializerCycleAcrossThreads, lazyCycleAcrossThreads]

    /// Checks that every outcome is a circular-dependency error whose message names both services.
    static func checkCycleErrors(_ outcomes: [String], _ context: inout Context) {
        for outcome in outcomes {
            if !outcome.hasPrefix("[Weft.circularDependency] Circular dependency: ") {
                context.violation("expected a circular dependency, got: \(outcome.prefix(200))")
            } else if outcome.contains("Circular dependency: .") || !outcome.contains("Warp")
                || !outcome.contains("Shuttle")
            {
                context.violation("a cycle error does not name the cycle: \(outcome.prefix(200))")
            }
        }
    }

    static let initializerCycleAcrossThreads = Scenario(
        name: "cycle-across-threads",
        summary: "two .container services that take each other are resolved from two threads at once: both "
            + "threads fail with the whole cycle named, neither hangs"
    ) { context in
        while context.hasTime {
            let container = Container()
            let arrived = Tally()
            func meet() {
                // The first arrival of each thread waits briefly for the other, so both are in their factories.
                if arrived.add("arrived") <= 2 {
                    var spins = 0
                    while arrived.count("arrived") < 2, spins < 2_000 {
                        usleep(50)
                        spins += 1
                    }
                }
            }
            container.register(Warp.self) { r in
                meet()
                return Warp(shuttle: try r.require(Shuttle.self))
            }
            .inObjectScope(.container)
            container.register(Shuttle.self) { r in
                meet()
                return Shuttle(warp: try r.require(Warp.self))
            }
            .inObjectScope(.container)
            let outcomes = Collected<String>()
            let finished = onThreads(2) { thread in
                do {
                    if thread == 0 {
                        _ = try container.require(Warp.self)
                    } else {
                        _ = try container.require(Shuttle.self)
                    }
                    outcomes.append("built")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            context.check(finished, "two threads resolving the ends of a cycle hung")
            checkCycleErrors(outcomes.values, &context)
            context.iterations += 1
        }
    }

    static let lazyCycleAcrossThreads = Scenario(
        name: "lazy-cycle-across-threads",
        summary: "a .container service whose factory reads a Lazy that needs it, while another thread reads that "
            + "Lazy: both fail with the cycle named, neither hangs"
    ) { context in
        while context.hasTime {
            let container = Container()
            let lazy = Box<Lazy<Shuttle>>()
            let entered = DispatchSemaphore(value: 0)
            let proceed = DispatchSemaphore(value: 0)
            let calls = Tally()
            container.register(Warp.self) { _ in
                if calls.add("warp") == 1 {
                    entered.signal()
                    proceed.wait()
                }
                return Warp(shuttle: try lazy.value!.get())
            }
            .inObjectScope(.container)
            container.register(Shuttle.self) { r in Shuttle(warp: try r.require(Warp.self)) }
            lazy.value = try container.require(Lazy<Shuttle>.self)
            let outcomes = Collected<String>()
            let pause = UInt32(context.random.below(2_000))
            let finished = onThreads(2) { thread in
                do {
                    if thread == 0 {
                        _ = try container.require(Warp.self)
                    } else {
                        entered.wait()
                        DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int(pause))) {
                            proceed.signal()
                        }
                        _ = try lazy.value!.get()
                    }
                    outcomes.append("built")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            context.check(finished, "threads closing a cycle through a Lazy hung")
            checkCycleErrors(outcomes.values, &context)
            context.iterations += 1
        }
    }
}

/// Deep chains on small and large stacks: each builds or fails with `tooDeep`, never crashes.
enum DepthScenarios {
    final class Node: Sendable {
        let next: Node?
        init(next: Node?) { self.next = next }
    }

    static let all: [Scenario] = [deepChains]

    /// `n0 -> n1 -> ...`, each resolved by name in `scope`.
    static func chain(of depth: Int, scope: ObjectScope) -> Container {
        let container = Container()
        for index in 0..<depth {
            container.register(Node.self, name: "n\(index)") { r in
                Node(next: index + 1 < depth ? try r.require(Node.self, name: "n\(index + 1)") : nil)
            }
            .inObjectScope(scope)
        }
        return container
    }

    static let deepChains = Scenario(
        name: "deep-chains",
        summary: "chains up to 5,000 deep on the main thread or an 8 MiB stack and up to 100 deep on a 512 KiB "
            + "stack, in each scope: built whole or failed with tooDeep"
    ) { context in
        let scopes: [ObjectScope] = [.graph, .transient, .container]
        while context.hasTime {
            let small = context.random.below(2) == 0
            let depth = small ? 50 + context.random.below(51) : 1_000 + context.random.below(4_001)
            let scope = scopes[context.random.below(scopes.count)]
            let container = chain(of: depth, scope: scope)
            let outcome = Collected<String>()
            let resolve: @Sendable () -> Void = {
                do {
                    var length = 0
                    var node: Node? = try container.require(Node.self, name: "n0")
                    while let current = node {
                        length += 1
                        node = current.next
                    }
                    outcome.append(length == depth ? "built" : "built \(length) of \(depth)")
                } catch let error as ResolutionError where error.reason == .tooDeep {
                    outcome.append(error.path.isEmpty ? "tooDeep without a path" : "tooDeep")
                } catch {
                    outcome.append("\(error)")
                }
            }
            if !small, context.random.below(2) == 0 {
                // On the process's main thread, with the stack the system gave it.
                resolve()
            } else {
                let finished = onThread(stackSize: small ? 512 << 10 : 8 << 20, within: 120, resolve)
                context.check(finished, "a \(depth)-deep chain did not finish")
            }
            for result in outcome.values where result != "built" && result != "tooDeep" {
                context.violation("\(depth)-deep \(scope) chain: \(result.prefix(200))")
            }
            context.iterations += 1
        }
    }
}
