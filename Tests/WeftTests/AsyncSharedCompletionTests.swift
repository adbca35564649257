import Foundation
import Testing

@testable import Weft

/// The `initCompleted` callbacks of instances made inside a shared instance's async factory, and of instances that
/// synchronous factories make inside an async resolve, wait for the factory that needed them, as the synchronous
/// engine's do: a child's callback can resolve the parent whose factory made the child.
@Suite struct AsyncSharedCompletionTests {
    final class Parent: Sendable {
        let child: Child
        init(child: Child) { self.child = child }
    }

    final class Child: @unchecked Sendable {
        private let lock = NSLock()
        private weak var stored: Parent?
        private var hubs: [Hub] = []
        var parent: Parent? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
        /// The hub a callback gave it.
        var hub: Hub? {
            get { lock.withLock { hubs.first } }
            set { lock.withLock { hubs = newValue.map { [$0] } ?? [] } }
        }
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

    /// Parent (async factory, in `scope`) needs Child (async or synchronous factory, transient), whose callback
    /// resolves Parent; `made` counts Parents, `log` notes each step, and `failFirstChild` makes the first Child's
    /// callback throw.
    private func parentAndChild(
        scope: ObjectScope,
        asyncChild: Bool,
        made: Counter = Counter(),
        log: Collected<String> = Collected(),
        failFirstChild: Bool = false
    ) -> Container {
        let container = Container()
        container.register(Parent.self) { r in
            let child = try await r.require(Child.self)
            await Task.yield()
            made.increment()
            return Parent(child: child)
        }
        .inObjectScope(scope)
        .initCompleted { _, _ in log.append("Parent completed") }
        let children = Counter()
        let callback: (Resolver, Child) throws -> Void = { r, child in
            usleep(2_000)
            if failFirstChild, children.increment() == 1 { throw CancellationError() }
            child.parent = try r.require(Parent.self)
            log.append("Child completed")
        }
        if asyncChild {
            container.register(Child.self) { _ in
                await Task.yield()
                return Child()
            }.inObjectScope(.transient).initCompleted(callback)
        } else {
            container.register(Child.self) { _ in Child() }.inObjectScope(.transient).initCompleted(callback)
        }
        return container
    }

    @Test(arguments: [true, false])
    func aChildsCallbackResolvesTheContainerScopedParentWhoseAsyncFactoryNeededIt(asyncChild: Bool) async throws {
        let made = Counter()
        let container = parentAndChild(scope: .container, asyncChild: asyncChild, made: made)
        let parent = try await container.async.require(Parent.self)
        #expect(parent.child.parent === parent)
        #expect(try await container.async.require(Parent.self) === parent)
        #expect(try container.require(Parent.self) === parent)
        #expect(made.value == 1)
    }

    @Test func aSynchronousChildsCallbackResolvesTheGraphScopedParentWhoseAsyncFactoryNeededIt() async throws {
        let container = parentAndChild(scope: .graph, asyncChild: false)
        let parent = try await container.async.require(Parent.self)
        #expect(parent.child.parent === parent)
    }

    @Test func aScopesParentIsCompleteWithItsChildsCallback() async throws {
        let container = parentAndChild(scope: .scoped, asyncChild: true)
        let scope = container.makeScope()
        let parent = try await scope.async.require(Parent.self)
        #expect(parent.child.parent === parent)
        try await scope.end()
    }

    @Test func callbacksOfWhatASharedFactoryMadeRunBeforeItsOwn() async throws {
        let log = Collected<String>()
        let container = parentAndChild(scope: .container, asyncChild: true, log: log)
        _ = try await container.async.require(Parent.self)
        #expect(log.values == ["Child completed", "Parent completed"])
    }

    @Test(hangLimit)
    func otherTasksGetASharedInstanceOnlyOnceWhatItsFactoryMadeIsComplete() async throws {
        let made = Counter()
        let container = parentAndChild(scope: .container, asyncChild: true, made: made)
        let parents = try await withThrowingTaskGroup(of: Parent.self) { group in
            for _ in 0..<8 { group.addTask { try await container.async.require(Parent.self) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for parent in parents {
            #expect(parent === parents[0])
            #expect(parent.child.parent === parent)
        }
        #expect(made.value == 1)
    }

    @Test func aFailedCallbackOfWhatASharedFactoryMadeDropsTheSharedInstance() async throws {
        let made = Counter()
        let container = parentAndChild(scope: .container, asyncChild: true, made: made, failFirstChild: true)
        await #expect {
            try await container.async.require(Parent.self)
        } throws: { error in
            (error as? ResolutionError)?.reason == .initCompletedFailed
        }
        let parent = try await container.async.require(Parent.self)
        #expect(parent.child.parent === parent)
        #expect(made.value == 2)
    }

    @Test(hangLimit)
    func aTaskThatOutlivesASharedFactoryRunsItsInstancesCallbacksAtOnce() async throws {
        let container = Container()
        let stray = Collected<Task<Child, any Error>>()
        let started = Counter()
        container.register(Hub.self) { (r: AsyncResolver) async throws in
            stray.append(Task { try await r.require(Child.self) })
            // Returns while the task's Child factory runs: the Child is made inside the Hub's build, after it ended.
            while started.value == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
            return Hub()
        }.inObjectScope(.container)
        container.register(Child.self) { _ in
            started.increment()
            try await Task.sleep(nanoseconds: 20_000_000)
            return Child()
        }.initCompleted { _, child in child.hub = Hub() }
        _ = try await container.async.require(Hub.self)
        let task = try #require(stray.values.first)
        let child = try await task.value
        // The callback ran although the Hub's build had finished when the task made the Child.
        #expect(child.hub != nil)
    }

    @Test func aSynchronousFactorysCallbackInAnAsyncGraphSeesWhatTheGraphMadeAfterIt() async throws {
        let container = Container()
        container.register(Top.self) { r in
            let child = try await r.require(Child.self)
            return Top(child: child, hub: try await r.require(Hub.self))
        }
        container.register(Child.self) { _ in Child() }
            .initCompleted { r, child in
                // The graph's Hub, whose async factory runs after this Child's synchronous one returned.
                child.hub = try r.require(Hub.self)
            }
        container.register(Hub.self) { _ in
            await Task.yield()
            return Hub()
        }
        let top = try await container.async.require(Top.self)
        #expect(top.child.hub === top.hub)
    }
}
