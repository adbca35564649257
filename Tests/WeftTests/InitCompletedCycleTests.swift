import Foundation
import Testing
import Weft

/// Cycles closed through `initCompleted`: a parent built through its initializer and a child that gets the parent
/// in a callback resolve in one graph without any factory or callback running twice, whatever their scopes.
@Suite struct InitCompletedCycleTests {
    /// Takes its child through the initializer; the child gets its parent in `initCompleted`.
    final class InitParent {
        let child: InitChild
        init(child: InitChild) { self.child = child }
    }

    /// Gets its parent in `initCompleted`, and counts the callbacks that ran on it.
    final class InitChild {
        weak var parent: InitParent?
        var callbacks = 0
    }

    /// Gets its parent in `initCompleted`, and counts the callbacks that ran on it.
    final class PropertyChild {
        weak var parent: PropertyParent?
        var callbacks = 0
    }

    /// Gets its child in `initCompleted`.
    final class PropertyParent {
        var child: PropertyChild?
        var callbacks = 0
    }

    /// Looks itself up in its own `initCompleted` callback, through its container and through the resolver, and
    /// notes whether each lookup found itself.
    final class SelfReader {
        var foundItself: [Bool] = []
    }

    struct Calls {
        /// Keeps the parents alive: children hold them weakly, as in the seed page.
        let parents = Collected<AnyObject>()
        let parentFactory = Counter()
        let childFactory = Counter()
        let parentCallbacks = Counter()
        let childCallbacks = Counter()
    }

    /// The initializer/property shape: `InitParent(child:)`, `child.parent` set in two `initCompleted` callbacks.
    private func initializerPropertyContainer(scope: ObjectScope, calls: Calls) -> Container {
        let container = Container()
        container.register(InitParent.self) { r in
            calls.parentFactory.increment()
            let parent = InitParent(child: try r.require(InitChild.self))
            calls.parents.append(parent)
            return parent
        }
        .inObjectScope(scope)
        container.register(InitChild.self) { _ in
            calls.childFactory.increment()
            return InitChild()
        }
        .inObjectScope(scope)
        .initCompleted { r, child in
            calls.childCallbacks.increment()
            child.parent = try r.require(InitParent.self)
            child.callbacks += 1
        }
        .initCompleted { _, child in
            calls.childCallbacks.increment()
            child.callbacks += 1
        }
        return container
    }

    /// The property/property shape: each side gets the other in its `initCompleted` callback.
    private func propertyPropertyContainer(scope: ObjectScope, calls: Calls) -> Container {
        let container = Container()
        container.register(PropertyParent.self) { _ in
            calls.parentFactory.increment()
            let parent = PropertyParent()
            calls.parents.append(parent)
            return parent
        }
        .inObjectScope(scope)
        .initCompleted { r, parent in
            calls.parentCallbacks.increment()
            parent.child = try r.require(PropertyChild.self)
            parent.callbacks += 1
        }
        container.register(PropertyChild.self) { _ in
            calls.childFactory.increment()
            return PropertyChild()
        }
        .inObjectScope(scope)
        .initCompleted { r, child in
            calls.childCallbacks.increment()
            child.parent = try r.require(PropertyParent.self)
            child.callbacks += 1
        }
        return container
    }

    static let sharedScopes: [ObjectScope] = [.graph, .container, .weak]

    @Test(arguments: sharedScopes)
    func initializerPropertyCycleFromTheParentRunsEachFactoryOnce(scope: ObjectScope) throws {
        let calls = Calls()
        let container = initializerPropertyContainer(scope: scope, calls: calls)

        let parent = try container.require(InitParent.self)

        #expect(parent.child.parent === parent)
        #expect(parent.child.callbacks == 2)
        #expect(calls.parentFactory.value == 1)
        #expect(calls.childFactory.value == 1)
        #expect(calls.childCallbacks.value == 2)
    }

    @Test(arguments: sharedScopes)
    func initializerPropertyCycleFromTheChildRunsEachFactoryOnce(scope: ObjectScope) throws {
        let calls = Calls()
        let container = initializerPropertyContainer(scope: scope, calls: calls)

        let child = try container.require(InitChild.self)

        let parent = try #require(child.parent)
        #expect(parent.child === child)
        #expect(child.callbacks == 2)
        #expect(calls.parentFactory.value == 1)
        #expect(calls.childFactory.value == 1)
        #expect(calls.childCallbacks.value == 2)
    }

    @Test(arguments: sharedScopes)
    func propertyPropertyCycleFromEitherEndRunsEachFactoryAndCallbackOnce(scope: ObjectScope) throws {
        let fromParent = Calls()
        let parentFirst = propertyPropertyContainer(scope: scope, calls: fromParent)
        let parent = try parentFirst.require(PropertyParent.self)
        let child = try #require(parent.child)
        #expect(child.parent === parent)
        #expect(parent.callbacks == 1)
        #expect(child.callbacks == 1)
        #expect(fromParent.parentFactory.value == 1)
        #expect(fromParent.childFactory.value == 1)
        #expect(fromParent.parentCallbacks.value == 1)
        #expect(fromParent.childCallbacks.value == 1)

        let fromChild = Calls()
        let childFirst = propertyPropertyContainer(scope: scope, calls: fromChild)
        let otherChild = try childFirst.require(PropertyChild.self)
        let otherParent = try #require(otherChild.parent)
        #expect(otherParent.child === otherChild)
        #expect(otherParent.callbacks == 1)
        #expect(otherChild.callbacks == 1)
        #expect(fromChild.parentFactory.value == 1)
        #expect(fromChild.childFactory.value == 1)
        #expect(fromChild.parentCallbacks.value == 1)
        #expect(fromChild.childCallbacks.value == 1)
    }

    @Test(arguments: [ObjectScope.container, .weak])
    func sharedCycleIsMadeOnceAcrossResolves(scope: ObjectScope) throws {
        let calls = Calls()
        let container = propertyPropertyContainer(scope: scope, calls: calls)

        let parent = try container.require(PropertyParent.self)
        let child = try container.require(PropertyChild.self)

        #expect(parent.child === child)
        #expect(child.parent === parent)
        #expect(calls.parentFactory.value == 1)
        #expect(calls.childFactory.value == 1)
        #expect(calls.parentCallbacks.value == 1)
        #expect(calls.childCallbacks.value == 1)
    }

    // MARK: - Cycles through initCompleted with transient services

    /// Transient; gets an `X` in `initCompleted`.
    final class TransientQ {
        var x: GraphX?
    }

    /// Graph-scoped; takes a `TransientQ` through its initializer.
    final class GraphX {
        let q: TransientQ
        init(q: TransientQ) { self.q = q }
    }

    @Test func transientCallbackCycleThroughAGraphScopedServiceSucceedsWithASecondInstance() throws {
        let qFactory = Counter()
        let xFactory = Counter()
        let qCallbacks = Counter()
        let container = Container()
        container.register(TransientQ.self) { _ in
            qFactory.increment()
            return TransientQ()
        }
        .inObjectScope(.transient)
        .initCompleted { r, q in
            qCallbacks.increment()
            q.x = try r.require(GraphX.self)
        }
        container.register(GraphX.self) { r in
            xFactory.increment()
            return GraphX(q: try r.require(TransientQ.self))
        }

        let q = try container.require(TransientQ.self)

        let x = try #require(q.x)
        #expect(x.q !== q)
        #expect(x.q.x === x)
        #expect(qFactory.value == 2)
        #expect(qCallbacks.value == 2)
        #expect(xFactory.value == 1)
        x.q.x = nil  // the second TransientQ and the GraphX keep each other: the test breaks that cycle
    }

    final class TransientP {
        var r: TransientR?
    }

    final class TransientR {
        var p: TransientP?
    }

    @Test func transientCallbackLoopIsACircularDependencyThatSaysNothingIsShared() throws {
        let pFactory = Counter()
        let container = Container()
        container.register(TransientP.self) { _ in
            pFactory.increment()
            return TransientP()
        }
        .inObjectScope(.transient)
        .initCompleted { r, p in p.r = try r.require(TransientR.self) }
        container.register(TransientR.self) { _ in TransientR() }
            .inObjectScope(.transient)
            .initCompleted { r, rr in rr.p = try r.require(TransientP.self) }

        let error = try #require(throws: ResolutionError.self) { try container.require(TransientP.self) }

        #expect(error.reason == .circularDependency)
        #expect(error.description.contains("none of them is shared"))
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: TransientP -> TransientR -> TransientP.
                These services ask for each other again and again: none of them is shared within the object graph, \
                so every request makes a new instance that asks once more.
                Break it by giving one of them a shared scope (.graph, the default, or .container), or let \
                TransientR take Lazy<TransientP> or Provider<TransientP>.
                Resolution path: TransientP -> TransientR -> TransientP -> TransientR -> TransientP
                """
        )
        // The first P's callback made a second R and P before the loop showed on the path: two, never more.
        #expect(pFactory.value == 2)
        #expect(container.resolve(TransientP.self) == nil)
    }

    @Test func containerServiceResolvedInItsOwnCallbackIsTheInstanceBeingCompleted() throws {
        let container = Container()
        let factoryCalls = Counter()
        container.register(SelfReader.self) { _ in
            factoryCalls.increment()
            return SelfReader()
        }
        .inObjectScope(.container)
        .initCompleted { [unowned container] r, reader in
            // Its build is still claimed here: the typed read of a built instance leaves it to the claiming path.
            reader.foundItself.append(container.resolve(SelfReader.self) === reader)
            reader.foundItself.append(r.resolve(SelfReader.self) === reader)
        }

        let reader = try container.require(SelfReader.self)

        #expect(reader.foundItself == [true, true])
        #expect(factoryCalls.value == 1)
        #expect(container.resolve(SelfReader.self) === reader)
    }
}
