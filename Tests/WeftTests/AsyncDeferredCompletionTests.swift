import Testing

@testable import Weft

/// The `initCompleted` callbacks of instances that async factories make inside other factories run once the
/// top-level factory has returned, as the synchronous engine runs them: a callback can close a cycle and see
/// what the graph made after its instance.
@Suite struct AsyncDeferredCompletionTests {
    final class Parent: Sendable {
        let child: Child
        init(child: Child) { self.child = child }
    }

    final class Child: @unchecked Sendable {
        weak var parent: Parent?
        var hub: Hub?
    }

    final class Hub: Sendable {}

    final class Top: Sendable {
        let child: Child
        let hub: Hub
        init(child: Child, hub: Hub) {
            self.child = child
            self.hub = hub
        }
    }

    final class Leaf: @unchecked Sendable {
        var hub: Hub?
    }

    final class Tree: Sendable {
        let leaves: [Leaf]
        let hub: Hub
        init(leaves: [Leaf], hub: Hub) {
            self.leaves = leaves
            self.hub = hub
        }
    }

    /// Parent needs Child; Child's callback resolves Parent, all with async factories in graph scope.
    private func parentAndChild(parentCallback: Bool = false, log: Collected<String>? = nil) -> Container {
        let container = Container()
        let parent = container.register(Parent.self) { r in
            let child = try await r.require(Child.self)
            log?.append("Parent made")
            return Parent(child: child)
        }
        if parentCallback { parent.initCompleted { _, _ in log?.append("Parent completed") } }
        container.register(Child.self) { _ in
            await Task.yield()
            return Child()
        }.initCompleted { r, child in
            child.parent = try r.require(Parent.self)
            log?.append("Child completed")
        }
        return container
    }

    @Test func aChildsCallbackResolvesTheParentWhoseAsyncFactoryNeededTheChild() async throws {
        let container = parentAndChild()
        let parent = try await container.async.require(Parent.self)
        #expect(parent.child.parent === parent)
        let again = await container.async.resolve(Parent.self)
        #expect(again !== parent)
        #expect(again?.child.parent === again)
    }

    @Test func callbacksWaitForTheTopLevelFactoryAndRunInTheOrderTheirInstancesWereMade() async throws {
        let log = Collected<String>()
        let container = parentAndChild(parentCallback: true, log: log)
        let parent = try await container.async.require(Parent.self)
        #expect(parent.child.parent === parent)
        #expect(log.values == ["Parent made", "Child completed", "Parent completed"])
    }

    @Test func aCallbackSeesWhatTheGraphMadeAfterItsInstance() async throws {
        let container = Container()
        container.register(Top.self) { r in
            let child = try await r.require(Child.self)
            // A nested transient factory returning in between is not the top-level one: the callback still waits.
            _ = try await r.require(Leaf.self)
            return Top(child: child, hub: try await r.require(Hub.self))
        }.inObjectScope(.transient)
        container.register(Leaf.self) { _ in
            await Task.yield()
            return Leaf()
        }.inObjectScope(.transient)
        container.register(Child.self) { _ in
            await Task.yield()
            return Child()
        }.initCompleted { r, child in child.hub = try r.require(Hub.self) }
        container.register(Hub.self) { _ in
            await Task.yield()
            return Hub()
        }
        let top = try await container.async.require(Top.self)
        #expect(top.child.hub === top.hub)
        let resolved = try #require(await container.async.resolve(Top.self))
        #expect(resolved.child.hub === resolved.hub)
        #expect(resolved.hub !== top.hub)
    }

    @Test func aTopLevelRequestWithArgumentsRunsTheCallbacksItsGraphQueued() async throws {
        let container = Container()
        container.register(Top.self) { (r: AsyncResolver, _: String) in
            let child = try await r.require(Child.self)
            return Top(child: child, hub: try await r.require(Hub.self))
        }
        container.register(Child.self) { _ in
            await Task.yield()
            return Child()
        }.initCompleted { r, child in child.hub = try r.require(Hub.self) }
        container.register(Hub.self) { _ in
            await Task.yield()
            return Hub()
        }
        let top = try await container.async.require(Top.self, arguments: "first")
        #expect(top.child.hub === top.hub)
    }

    @Test func aCallbackThatThrowsAfterTheTopLevelFactoryFailsTheRequestWithTheInstancesPath() async throws {
        let container = Container()
        let failing = Counter()
        failing.increment()
        container.register(Parent.self) { r in Parent(child: try await r.require(Child.self)) }
        container.register(Child.self) { _ in
            await Task.yield()
            return Child()
        }.initCompleted { r, child in
            if failing.value > 0 { throw Failure(code: 7) }
            child.parent = try r.require(Parent.self)
        }
        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Parent.self)
        }
        #expect(error.reason == .initCompletedFailed)
        #expect(error.path == ["Parent", "Child"])
        #expect(error.underlyingError as? Failure == Failure(code: 7))
        failing.decrement()
        let parent = try await container.async.require(Parent.self)
        #expect(parent.child.parent === parent)
    }

    @Test func childTasksOfAFactoryQueueTheirCallbacksForTheTopLevelRequest() async throws {
        let container = Container()
        let completed = Counter()
        container.register(Hub.self) { _ in
            await Task.yield()
            return Hub()
        }
        container.register(Leaf.self) { _ in
            await Task.yield()
            return Leaf()
        }.inObjectScope(.transient).initCompleted { r, leaf in
            leaf.hub = try r.require(Hub.self)
            completed.increment()
        }
        container.register(Tree.self) { r in
            let leaves = try await withThrowingTaskGroup(of: Leaf.self) { group in
                for _ in 0..<8 { group.addTask { try await r.require(Leaf.self) } }
                var leaves: [Leaf] = []
                for try await leaf in group { leaves.append(leaf) }
                return leaves
            }
            return Tree(leaves: leaves, hub: try await r.require(Hub.self))
        }
        let tree = try await container.async.require(Tree.self)
        #expect(completed.value == 8)
        #expect(tree.leaves.count == 8)
        #expect(tree.leaves.allSatisfy { $0.hub === tree.hub })
    }

    /// Resolves a Hub in `hubScope` whose factory starts a task it does not wait for, which asks for a Leaf (with a
    /// callback) while the factory runs and gets it only after the top-level request has returned; returns how many
    /// callbacks had run when the request returned, and after the task's Leaf was made.
    private func callbacksOfALeafMadeAfterTheTopLevelReturn(hubScope: ObjectScope) async throws -> (Int, Int) {
        let container = Container()
        let entered = AsyncWaitingTests.Gate()
        let release = AsyncWaitingTests.Gate()
        let completed = Counter()
        let tasks = Collected<Task<Leaf, any Error>>()
        container.register(Leaf.self) { _ in
            entered.openGate()
            await release.wait()
            return Leaf()
        }.inObjectScope(.transient).initCompleted { _, _ in completed.increment() }
        container.register(Hub.self) { r in
            tasks.append(Task { try await r.require(Leaf.self) })
            await entered.wait()
            return Hub()
        }.inObjectScope(hubScope)
        _ = try await container.async.require(Hub.self)
        let atReturn = completed.value
        release.openGate()
        let task = try #require(tasks.values.first)
        _ = try await task.value
        return (atReturn, completed.value)
    }

    @Test(hangLimit)
    func anInstanceATaskFinishesAfterTheTopLevelFactoryReturnedRunsItsCallbacksAtOnce() async throws {
        let (atReturn, after) = try await callbacksOfALeafMadeAfterTheTopLevelReturn(hubScope: .graph)
        #expect(atReturn == 0)
        #expect(after == 1)
    }

    /// Transient all the way, without callbacks: the resolution makes no graph before its task's Leaf needs one.
    @Test(hangLimit)
    func aTaskOfATransientResolutionWithoutAGraphRunsItsInstancesCallbacksOnceItIsMade() async throws {
        let (_, after) = try await callbacksOfALeafMadeAfterTheTopLevelReturn(hubScope: .transient)
        #expect(after == 1)
    }
}

// The example of "With async factories" in CircularDependencies.md, with its types.
private protocol DocParentProtocol: AnyObject {}
private protocol DocChildProtocol: AnyObject {}

private final class DocParent: DocParentProtocol {
    let child: (any DocChildProtocol)?
    init(child: (any DocChildProtocol)?) { self.child = child }
}

private final class DocChild: DocChildProtocol {
    weak var parent: (any DocParentProtocol)?
}

extension AsyncDeferredCompletionTests {
    @Test func theCircularDependenciesArticlesAsyncExampleClosesTheCycle() async throws {
        let container = Container()
        container.register(DocParentProtocol.self) { r in
            DocParent(child: try await r.require(DocChildProtocol.self))
        }
        container.register(DocChildProtocol.self) { _ in
            await Task.yield()
            return DocChild()
        }
        .initCompleted { r, c in
            let child = c as! DocChild
            child.parent = try r.require(DocParentProtocol.self)
        }

        let parent = try await container.async.require(DocParentProtocol.self) as! DocParent
        let child = parent.child as! DocChild
        #expect(child.parent === parent)
    }
}
