import Foundation
import Weft

/// Graph-scoped instances of synchronous factories in async graphs whose child tasks reach them at the same time,
/// directly and through other synchronous factories, and in graphs named from outside that several threads resolve
/// in at once: one instance per graph, none shared between graphs, and a failed build leaves the graph able to make
/// it again.
enum GraphBuildScenarios {
    final class Shared: Sendable {
        let serial: Int
        init(serial: Int) { self.serial = serial }
    }

    final class User: Sendable {
        let shared: Shared
        init(shared: Shared) { self.shared = shared }
    }

    static let all: [Scenario] = [syncGraphOnce, escapedGraphsOnce]

    static let syncGraphOnce = Scenario(
        name: "async-graph-sync-once",
        summary: "child tasks of async resolves reach a graph-scoped service with a slow synchronous factory, directly "
            + "and through synchronous factories, some builds failing: one instance per graph, never another graph's"
    ) { context in
        while context.hasTime {
            let container = Container()
            let made = Tally()
            let delay = UInt32(context.random.below(400))
            let failEvery = 2 + context.random.below(4)
            container.register(Shared.self) { _ in
                let serial = made.add("made")
                if delay > 0 { usleep(delay) }
                if serial.isMultiple(of: failEvery) { throw CancellationError() }
                return Shared(serial: serial)
            }
            container.register(User.self) { r in User(shared: try r.require(Shared.self)) }
            container.register([Shared].self) { r in
                await withTaskGroup(of: Shared?.self) { group in
                    for child in 0..<6 {
                        group.addTask {
                            if child.isMultiple(of: 2) { return try? await r.require(Shared.self) }
                            return try? await r.require(User.self).shared
                        }
                    }
                    return await group.reduce(into: []) { if let shared = $1 { $0.append(shared) } }
                }
            }
            let graphs = 1 + context.random.below(3)
            let result = Tally()
            let seen = SeenSerials()
            let group = DispatchGroup()
            for _ in 0..<graphs {
                group.enter()
                Task.detached {
                    defer { group.leave() }
                    guard let shared = try? await container.async.require([Shared].self) else {
                        return result.note("an async resolve failed")
                    }
                    let serials = Set(shared.map(\.serial))
                    if serials.count > 1 { result.note("one graph got instances \(serials.sorted())") }
                    if let serial = serials.first, !seen.insert(serial) {
                        result.note("two graphs got instance #\(serial)")
                    }
                }
            }
            context.check(group.wait(timeout: .now() + 60) == .success, "async resolves did not finish")
            for note in result.noted { context.violation(note) }
            context.iterations += 1
        }
    }

    static let escapedGraphsOnce = Scenario(
        name: "escaped-graphs-once",
        summary: "threads resolve a graph-scoped service with a slow factory in a few graphs named from outside "
            + "(withObjectGraph), several threads per graph at once: one instance per graph, never another graph's"
    ) { context in
        while context.hasTime {
            let container = Container()
            let made = Tally()
            let delay = UInt32(context.random.below(400))
            container.register(Shared.self) { _ in
                let serial = made.add("made")
                if delay > 0 { usleep(delay) }
                return Shared(serial: serial)
            }
            let graphs = (0..<(2 + context.random.below(3))).map { _ in GraphIdentifier() }
            let threads = 2 * graphs.count + context.random.below(4)
            let got = Got()
            let finished = onThreads(threads) { index in
                let graph = graphs[index % graphs.count]
                let shared = try? container.withObjectGraph(graph) { try $0.require(Shared.self) }
                got.note(shared, in: index % graphs.count)
            }
            context.check(finished, "threads did not finish")
            for violation in got.violations() { context.violation(violation) }
            context.iterations += 1
        }
    }

    /// The instances each graph's threads got, kept alive until checked (a graph's storage holds its instance only
    /// weakly once its resolves ended).
    final class Got: @unchecked Sendable {
        private let lock = NSLock()
        private var byGraph: [Int: [Shared?]] = [:]
        func note(_ shared: Shared?, in graph: Int) { lock.withLock { byGraph[graph, default: []].append(shared) } }

        func violations() -> [String] {
            lock.withLock {
                var seen: Set<Int> = []
                var found: [String] = []
                for (graph, instances) in byGraph {
                    let serials = Set(instances.map { $0?.serial ?? -1 })
                    if serials.contains(-1) { found.append("a resolve in graph \(graph) failed") }
                    if serials.count > 1 { found.append("graph \(graph) got instances \(serials.sorted())") }
                    for serial in serials where serial >= 0 && !seen.insert(serial).inserted {
                        found.append("two graphs got instance #\(serial)")
                    }
                }
                return found
            }
        }
    }

    /// The serials of the instances graphs got, across tasks.
    final class SeenSerials: @unchecked Sendable {
        private let lock = NSLock()
        private var serials: Set<Int> = []
        func insert(_ serial: Int) -> Bool { lock.withLock { serials.insert(serial).inserted } }
    }
}
