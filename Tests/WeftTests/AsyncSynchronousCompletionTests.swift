import Foundation
import Testing

@testable import Weft

/// The `initCompleted` callbacks of instances that synchronous factories make inside an async graph wait for the
/// top-level factory, as those of async factories' instances do and as the synchronous engine runs them: a callback
/// can close a cycle with the parent whose async factory needed the instance, also from a child task.
@Suite(hangLimit) struct AsyncSynchronousCompletionTests {
    final class Parent: Sendable {
        let child: Child
        init(child: Child) { self.child = child }
    }

    final class Child: @unchecked Sendable {
        weak var parent: Parent?
    }

    final class Peer: Sendable {
        let child: Child
        init(child: Child) { self.child = child }
    }

    /// A container whose graph-scoped Child has a synchronous factory and a callback that resolves Parent (and logs
    /// to `log`); Parent's factory is registered by the test.
    private func childResolvingParent(log: Collected<String>? = nil) -> Container {
        let container = Container()
        container.register(Child.self) { _ in Child() }.initCompleted { r, child in
            child.parent = try r.require(Parent.self)
            log?.append("Child completed")
        }
        container.register(Peer.self) { r in Peer(child: try r.require(Child.self)) }
        return container
    }

    @Test func aSynchronousChildsCallbackResolvesTheParentWhoseAsyncFactoryNeededIt() async throws {
        let container = childResolvingParent()
        container.register(Parent.self) { (r: AsyncResolver) async throws in
            Parent(child: try await r.require(Child.self))
        }
        let parent = try await container.async.require(Parent.self)
        #expect(parent.child.parent === parent)
    }

    @Test func theSynchronousEngineClosesTheSameCycle() throws {
        let container = childResolvingParent()
        container.register(Parent.self) { r in Parent(child: try r.require(Child.self)) }
        let parent = try container.require(Parent.self)
        #expect(parent.child.parent === parent)
    }

    @Test func childTasksReachingTheSynchronousChildThroughAPeerCloseTheCycleOnce() async throws {
        let log = Collected<String>()
        let container = childResolvingParent(log: log)
        container.register(Parent.self) { (r: AsyncResolver) async throws in
            async let child = r.require(Child.self)
            async let peer = r.require(Peer.self)
            let made = try await child
            #expect(try await peer.child === made)
            return Parent(child: made)
        }
        let parent = try await container.async.require(Parent.self)
        #expect(parent.child.parent === parent)
        #expect(log.values == ["Child completed"])
    }

    @Test func callbacksOfSynchronousAndAsyncInstancesRunInTheOrderTheyWereMadeAfterTheTopLevelFactory() async throws {
        let log = Collected<String>()
        let container = Container()
        container.register(Child.self) { _ in Child() }.initCompleted { _, _ in log.append("Child completed") }
        container.register(Peer.self) { (r: AsyncResolver) async throws in
            await Task.yield()
            return Peer(child: try await r.require(Child.self))
        }.initCompleted { _, _ in log.append("Peer completed") }
        container.register(Parent.self) { (r: AsyncResolver) async throws in
            let peer = try await r.require(Peer.self)
            log.append("Parent made")
            return Parent(child: peer.child)
        }.initCompleted { _, _ in log.append("Parent completed") }
        _ = try await container.async.require(Parent.self)
        #expect(log.values == ["Parent made", "Child completed", "Peer completed", "Parent completed"])
    }

    @Test func aThrowingCallbackOfASynchronousInstanceFailsTheRequestWithItsPath() async throws {
        let container = Container()
        let fail = Counter()
        container.register(Child.self) { _ in Child() }.initCompleted { _, _ in
            if fail.increment() == 1 { throw Failure(code: 7) }
        }
        container.register(Parent.self) { (r: AsyncResolver) async throws in
            Parent(child: try await r.require(Child.self))
        }
        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Parent.self)
        }
        #expect(error.reason == .initCompletedFailed)
        #expect(error.path == ["Parent", "Child"])
        #expect(error.underlyingError as? Failure == Failure(code: 7))
        // The failed graph is gone: the next request makes a new one, whose callback passes.
        let parent = try await container.async.require(Parent.self)
        #expect(fail.value == 2)
        _ = parent
    }

    @Test func aSynchronousTopLevelRequestRunsItsCallbacksBeforeReturning() async throws {
        let log = Collected<String>()
        let container = Container()
        container.register(Child.self) { _ in Child() }.initCompleted { _, _ in log.append("Child completed") }
        container.register(Peer.self) { r in Peer(child: try r.require(Child.self)) }
        _ = try await container.async.require(Peer.self)
        #expect(log.values == ["Child completed"])
    }

    @Test func whatASharedInstancesAsyncFactoryMadeCompletesOnceThatFactoryReturned() async throws {
        let log = Collected<String>()
        let container = Container()
        container.register(Child.self) { _ in Child() }.initCompleted { _, _ in log.append("Child completed") }
        container.register(Peer.self) { (r: AsyncResolver) async throws in
            let child = try await r.require(Child.self)
            log.append("Peer made")
            return Peer(child: child)
        }.inObjectScope(.container)
        _ = try await container.async.require(Peer.self)
        #expect(log.values == ["Peer made", "Child completed"])
    }
}
