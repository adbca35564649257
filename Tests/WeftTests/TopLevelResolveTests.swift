import Testing
import Weft

/// A top-level resolve of a transient or graph-scoped service whose caller names the type: what follows its
/// factory (callbacks queued by its dependencies, a graph that escaped) sees the instance in the graph, and a
/// failure ends the graph.
@Suite struct TopLevelResolveTests {
    final class Root: @unchecked Sendable {
        let leaf: Leaf
        init(leaf: Leaf) { self.leaf = leaf }
    }

    final class Leaf: @unchecked Sendable {
        // Weak: the root holds its leaf.
        weak var rootSeenByCallback: Root?
    }

    final class LazyRoot: @unchecked Sendable {}

    /// Keeps the `Lazy` a factory resolved outside the instance, so that no instance holds itself.
    final class LazyHolder: @unchecked Sendable {
        var lazy: Lazy<LazyRoot>?
    }

    struct Broken: Error {}

    @Test func callbackQueuedByADependencySeesTheTopLevelGraphInstance() throws {
        let container = Container()
        let calls = Counter()
        container.register(Root.self) { r in
            calls.increment()
            return Root(leaf: r.resolve(Leaf.self)!)
        }
        container.register(Leaf.self) { _ in Leaf() }
            .initCompleted { r, leaf in leaf.rootSeenByCallback = r.resolve(Root.self) }

        let root = try #require(container.resolve(Root.self))
        #expect(root.leaf.rootSeenByCallback === root)
        #expect(calls.value == 1)
        // Each top-level resolve is a graph of its own.
        let other = try container.require(Root.self)
        #expect(other !== root)
        #expect(other.leaf.rootSeenByCallback === other)
        #expect(calls.value == 2)
    }

    @Test func transientTopLevelRunsTheCallbacksItsDependenciesQueued() throws {
        let container = Container()
        let callbacks = Counter()
        container.register(Root.self) { r in Root(leaf: r.resolve(Leaf.self)!) }
            .inObjectScope(.transient)
        container.register(Leaf.self) { _ in Leaf() }
            .inObjectScope(.transient)
            .initCompleted { _, _ in callbacks.increment() }

        _ = try #require(container.resolve(Root.self))
        #expect(callbacks.value == 1)
        _ = try container.require(Root.self)
        #expect(callbacks.value == 2)
    }

    @Test func escapedGraphFindsTheTopLevelInstanceLater() throws {
        let container = Container()
        let calls = Counter()
        let holder = LazyHolder()
        container.register(LazyRoot.self) { r in
            calls.increment()
            holder.lazy = r.resolve(Lazy<LazyRoot>.self)
            return LazyRoot()
        }

        let root = try #require(container.resolve(LazyRoot.self))
        #expect(holder.lazy?.instance === root)
        #expect(calls.value == 1)
        // The factory holds the holder, and the `Lazy` holds the container.
        holder.lazy = nil
    }

    @Test func failingCallbackFailsTheTopLevelResolveAndTheNextOneWorks() throws {
        let container = Container()
        let fail = Counter()
        container.register(Root.self) { r in Root(leaf: try r.require(Leaf.self)) }
        container.register(Leaf.self) { _ in Leaf() }
            .initCompleted { _, _ in if fail.increment() == 1 { throw Broken() } }

        let error = try #require(throws: ResolutionError.self) { try container.require(Root.self) }
        #expect(error.reason == .initCompletedFailed)
        #expect(error.path == ["Root", "Leaf"])
        let root = try container.require(Root.self)
        #expect(container.resolve(Root.self) !== root)
    }

    @Test func failingTopLevelFactoryReportsItsPathAndLeavesNoGraphBehind() throws {
        let container = Container()
        let calls = Counter()
        container.register(Leaf.self) { _ in
            if calls.increment() == 1 { throw Broken() }
            return Leaf()
        }
        .inObjectScope(.transient)

        let error = try #require(throws: ResolutionError.self) { try container.require(Leaf.self) }
        #expect(error.reason == .factoryFailed)
        #expect(error.path == ["Leaf"])
        #expect(container.resolve(Leaf.self) != nil)
        #expect(container.resolve(GraphIdentifier.self) == nil)
    }

    @Test func topLevelServiceResolvingItselfIsACycleWithItsPath() throws {
        let container = Container()
        container.register(Leaf.self) { r in
            _ = try r.require(Leaf.self)
            return Leaf()
        }
        .inObjectScope(.transient)

        let error = try #require(throws: ResolutionError.self) { try container.require(Leaf.self) }
        #expect(error.reason == .circularDependency)
        #expect(error.path == ["Leaf", "Leaf"])
    }
}
