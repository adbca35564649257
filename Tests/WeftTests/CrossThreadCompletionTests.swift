import Dispatch
import Foundation
import Testing
import Weft

/// A shared instance is handed to another thread only once every shared instance it may reach through its own
/// graph is complete: made inside the `initCompleted` callback of another shared instance (Swinject's
/// parent/child property injection), it may hold that instance, whose callback is still running.
@Suite(hangLimit) struct CrossThreadCompletionTests {
    final class Parent: @unchecked Sendable {
        var child: Child?
        var engine: Engine?
    }
    final class Child: @unchecked Sendable {
        var parent: Parent?
    }
    final class Engine: @unchecked Sendable {
        let child: Child
        init(child: Child) { self.child = child }
    }

    /// Two signals between the threads of one test: the one building says when the instance under test is made,
    /// the other when its resolve returned.
    final class Handshake: Sendable {
        let made = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)

        /// Called by the building thread inside the child's callback: lets the other thread resolve, and gives it
        /// time to return (which it must not do before the callback ends). Returns whether it did.
        @discardableResult
        func madeAndWait() -> Bool {
            made.signal()
            return returned.wait(timeout: .now() + 0.3) == .success
        }
    }

    @Test func aSingletonMadeInAnotherSingletonsCallbackWaitsForThatCallbackOnOtherThreads() throws {
        let container = Container()
        let handshake = Handshake()
        container.register(Parent.self) { _ in Parent() }
            .initCompleted { resolver, parent in parent.child = try resolver.require(Child.self) }
            .inObjectScope(.container)
        container.register(Child.self) { _ in Child() }
            .initCompleted { resolver, child in
                let parent = try resolver.require(Parent.self)
                handshake.madeAndWait()
                child.parent = parent
            }
            .inObjectScope(.container)

        let builder = runOnThread { _ = container.resolve(Child.self) }
        #expect(handshake.made.wait(timeout: .now() + 10) == .success)
        let parent = try container.require(Parent.self)
        // Read before the building thread goes on: the child the parent holds has run its callback.
        let complete = parent.child?.parent === parent
        handshake.returned.signal()
        #expect(builder.wait(seconds: 10))
        #expect(complete)
        parent.child = nil
    }

    @Test func aSingletonWithoutCallbacksMadeInAnotherSingletonsCallbackWaitsForThatCallbackOnOtherThreads() throws {
        let container = Container()
        let handshake = Handshake()
        container.register(Engine.self) { resolver in Engine(child: try resolver.require(Child.self)) }
            .inObjectScope(.container)
        container.register(Child.self) { _ in Child() }
            .initCompleted { resolver, child in
                let engine = try resolver.require(Engine.self)
                handshake.madeAndWait()
                child.parent = Parent()
                child.parent?.engine = engine
            }
            .inObjectScope(.container)

        let builder = runOnThread { _ = container.resolve(Child.self) }
        #expect(handshake.made.wait(timeout: .now() + 10) == .success)
        let engine = try container.require(Engine.self)
        let complete = engine.child.parent?.engine === engine
        handshake.returned.signal()
        #expect(builder.wait(seconds: 10))
        #expect(complete)
        engine.child.parent = nil
    }

    @Test func aSingletonMadeInATransientInstancesCallbackIsHandedToOtherThreadsAtOnce() throws {
        // No other resolve can reach a transient instance: what its callback makes need not wait for it.
        let container = Container()
        let handshake = Handshake()
        let returnedInCallback = Collected<Bool>()
        container.register(Parent.self) { _ in Parent() }.inObjectScope(.container)
        container.register(Child.self) { _ in Child() }
            .initCompleted { resolver, child in
                child.parent = try resolver.require(Parent.self)
                returnedInCallback.append(handshake.madeAndWait())
            }
            .inObjectScope(.transient)

        let builder = runOnThread { _ = container.resolve(Child.self) }
        #expect(handshake.made.wait(timeout: .now() + 10) == .success)
        _ = try container.require(Parent.self)
        handshake.returned.signal()
        #expect(builder.wait(seconds: 10))
        #expect(returnedInCallback.values == [true])
    }

    @Test func parentsAndChildrenResolvedOnTwoThreadsAtOnceAreComplete() {
        for _ in 0..<lighterUnderSanitizer(200) {
            let container = Container()
            container.register(Parent.self) { _ in Parent() }
                .initCompleted { resolver, parent in parent.child = resolver.resolve(Child.self) }
                .inObjectScope(.container)
            container.register(Child.self) { _ in Child() }
                .initCompleted { resolver, child in child.parent = resolver.resolve(Parent.self) }
                .inObjectScope(.container)
            let incomplete = Counter()
            runOnThreads(2) { thread in
                if thread == 0 {
                    let parent = container.resolve(Parent.self)
                    if parent == nil || parent?.child?.parent !== parent { incomplete.increment() }
                } else {
                    let child = container.resolve(Child.self)
                    if child == nil || child?.parent?.child !== child { incomplete.increment() }
                }
            }
            #expect(incomplete.value == 0)
            container.resolve(Parent.self)?.child = nil
        }
    }
}
