import Foundation
import Weft

/// `initCompleted` callbacks of async factories' instances that wait for the top-level factory (or for the shared
/// instance's factory that made them): each runs once, before the instance reaches anyone who could see it, also for
/// an instance a task of the resolution finishes just before, while or after the queue runs.
enum CompletionScenarios {
    /// An instance whose callback sets `hub`; whoever gets it must find it set.
    final class Leaf: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: AnyObject?
        var hub: AnyObject? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    final class Hub: Sendable {}

    final class Tree: Sendable {
        let leaves: [Leaf]
        let hub: Hub
        init(leaves: [Leaf], hub: Hub) {
            self.leaves = leaves
            self.hub = hub
        }
    }

    static let all: [Scenario] = [deferredCallbacks]

    static let deferredCallbacks = Scenario(
        name: "async-deferred-callbacks",
        summary: "async resolves whose factories make instances with callbacks in child tasks and in a task they do "
            + "not await, finishing around the top-level return: each callback runs once, each leaf is complete"
    ) { context in
        while context.hasTime {
            let container = Container()
            let tally = Tally()
            // A singleton's tree runs its leaves' callbacks when its own factory returns, before anyone gets it.
            let treeScope = [ObjectScope.graph, .transient, .container][context.random.below(3)]
            let pause = UInt32(context.random.below(300))
            let stray = Collected()
            container.register(Hub.self) { (_: AsyncResolver) async in Hub() }
            container.register(Leaf.self) { (_: AsyncResolver) async in
                if pause > 150 { usleep(pause) }
                await Task.yield()
                return Leaf()
            }
            .inObjectScope(.transient)
            .initCompleted { r, leaf in
                tally.add("callbacks")
                // A leaf completed within the resolution finds the graph's Hub; a later one (its own graph) makes one.
                leaf.hub = (try? r.require(Hub.self)) ?? Hub()
            }
            container.register(Tree.self) { r in
                stray.add(Task { try await r.require(Leaf.self) })
                let leaves = try await withThrowingTaskGroup(of: Leaf.self) { group in
                    for _ in 0..<4 { group.addTask { try await r.require(Leaf.self) } }
                    var leaves: [Leaf] = []
                    for try await leaf in group { leaves.append(leaf) }
                    return leaves
                }
                if pause < 150 { usleep(pause) }
                return Tree(leaves: leaves, hub: try await r.require(Hub.self))
            }
            .inObjectScope(treeScope)
            let done = DispatchSemaphore(value: 0)
            let result = Tally()
            Task.detached {
                defer { done.signal() }
                guard let tree = try? await container.async.require(Tree.self) else {
                    return result.note("the resolve failed")
                }
                for leaf in tree.leaves where leaf.hub !== tree.hub {
                    result.note("a child task's leaf did not get the tree's hub")
                }
                for task in stray.tasks {
                    guard let leaf = try? await task.value else { return result.note("the stray leaf failed") }
                    if leaf.hub == nil { result.note("the stray leaf was handed out before its callback ran") }
                }
            }
            context.check(done.wait(timeout: .now() + 60) == .success, "an async resolve did not finish")
            for note in result.noted { context.violation(note) }
            context.check(tally.count("callbacks") == 5, "\(tally.count("callbacks")) callbacks ran for 5 leaves")
            context.iterations += 1
        }
    }

    /// The tasks a factory started without waiting for them.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var started: [Task<Leaf, any Error>] = []
        func add(_ task: Task<Leaf, any Error>) { lock.withLock { started.append(task) } }
        var tasks: [Task<Leaf, any Error>] { lock.withLock { started } }
    }
}
