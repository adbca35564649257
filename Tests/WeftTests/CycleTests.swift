import Testing
import Weft

/// Exact cycle detection: an initializer cycle is an error that names every step in order, however deep it
/// starts and however long it is, while deep legitimate graphs still resolve; cycles closed through
/// `initCompleted` never make a factory run twice inside one object graph.
///
/// Serialized because one test replaces the global `Container.loggingFunction`.
@Suite(.serialized) struct CycleTests {
    // MARK: - Fixtures

    /// A service whose factory takes another service through its initializer.
    final class CycA {
        let next: AnyObject
        init(next: AnyObject) { self.next = next }
    }

    final class CycB {
        let next: AnyObject
        init(next: AnyObject) { self.next = next }
    }

    final class CycC {
        let next: AnyObject
        init(next: AnyObject) { self.next = next }
    }

    final class Garage {
        let car: AnyObject
        init(car: AnyObject) { self.car = car }
    }

    /// Only the logging test uses these two, so its spy can recognise its own messages by their names.
    final class CycleLoggedNorth {
        let south: CycleLoggedSouth
        init(south: CycleLoggedSouth) { self.south = south }
    }

    final class CycleLoggedSouth {
        let north: CycleLoggedNorth
        init(north: CycleLoggedNorth) { self.north = north }
    }

    /// Reaches `CycC` twice: through `CycA` and through `CycB`.
    final class Diamond {
        let left: CycA
        let right: CycB
        init(left: CycA, right: CycB) {
            self.left = left
            self.right = right
        }
    }

    /// One link of a long chain; the links are registrations of this one type under the names "0", "1", ...
    final class Link {
        let next: Link?
        init(next: Link?) { self.next = next }
    }

    /// The three-way initializer cycle `CycA -> CycB -> CycC -> CycA`.
    private func threeWayCycle() -> Container {
        let container = Container()
        container.register(CycA.self) { r in CycA(next: try r.require(CycB.self)) }
        container.register(CycB.self) { r in CycB(next: try r.require(CycC.self)) }
        container.register(CycC.self) { r in CycC(next: try r.require(CycA.self)) }
        return container
    }

    /// `count` registrations of `Link` named "0" ... "count - 1", each requiring the next; the last one requires
    /// "0" when `closed`, and nothing otherwise.
    private static func chain(of count: Int, closed: Bool) -> Container {
        let container = Container()
        for index in 0..<count {
            let isLast = index == count - 1
            let next = isLast ? (closed ? "0" : nil) : String(index + 1)
            container.register(Link.self, name: String(index)) { r in
                Link(next: try next.map { try r.require(Link.self, name: $0) })
            }
        }
        return container
    }

    // MARK: - Initializer cycles are errors that name every step

    @Test func initializerCycleNamesEveryStepInOrder() throws {
        let container = threeWayCycle()

        let error = try #require(throws: ResolutionError.self) { try container.require(CycA.self) }

        #expect(error.reason == .circularDependency)
        #expect(error.identifier == "Weft.circularDependency")
        #expect(error.path == ["CycA", "CycB", "CycC", "CycA"])
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: CycA -> CycB -> CycC -> CycA.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let CycC \
                take Lazy<CycA> or Provider<CycA>.
                """
        )
    }

    @Test func initializerCycleStartsWhereTheRequestEnteredIt() throws {
        let container = threeWayCycle()

        let error = try #require(throws: ResolutionError.self) { try container.require(CycB.self) }

        #expect(error.path == ["CycB", "CycC", "CycA", "CycB"])
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: CycB -> CycC -> CycA -> CycB.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let CycA \
                take Lazy<CycB> or Provider<CycB>.
                """
        )
    }

    @Test func cycleThatStartsDeeperShowsTheWholePath() throws {
        let container = Container()
        container.register(Garage.self) { r in Garage(car: try r.require(CycA.self)) }
        container.register(CycA.self) { r in CycA(next: try r.require(CycB.self)) }
        container.register(CycB.self) { r in CycB(next: try r.require(CycA.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(error.path == ["Garage", "CycA", "CycB", "CycA"])
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: CycA -> CycB -> CycA.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let CycB \
                take Lazy<CycA> or Provider<CycA>.
                Resolution path: Garage -> CycA -> CycB -> CycA
                """
        )
    }

    @Test func serviceWhoseFactoryRequiresItselfIsACycleOfOne() throws {
        let container = Container()
        container.register(CycA.self) { r in CycA(next: try r.require(CycA.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require(CycA.self) }

        #expect(error.reason == .circularDependency)
        #expect(error.path == ["CycA", "CycA"])
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: CycA -> CycA.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let CycA \
                take Lazy<CycA> or Provider<CycA>.
                """
        )
    }

    @Test func containerScopedServicesOnAnInitializerCycleAreStillACycle() throws {
        let calls = Counter()
        let container = Container()
        container.register(CycA.self) { r in
            calls.increment()
            return CycA(next: try r.require(CycB.self))
        }
        .inObjectScope(.container)
        container.register(CycB.self) { r in
            calls.increment()
            return CycB(next: try r.require(CycA.self))
        }
        .inObjectScope(.container)

        let error = try #require(throws: ResolutionError.self) { try container.require(CycA.self) }

        #expect(error.path == ["CycA", "CycB", "CycA"])
        #expect(calls.value == 2)
    }

    @Test func resolveReturnsNilForACycleAndLogsTheSameTextAsRequire() throws {
        let container = Container()
        container.register(CycleLoggedNorth.self) { r in
            CycleLoggedNorth(south: try r.require(CycleLoggedSouth.self))
        }
        container.register(CycleLoggedSouth.self) { r in
            CycleLoggedSouth(north: try r.require(CycleLoggedNorth.self))
        }
        let thrown = try #require(throws: ResolutionError.self) { try container.require(CycleLoggedNorth.self) }

        var resolved: CycleLoggedNorth?
        let messages = messagesLogged(containing: "CycleLoggedNorth") {
            resolved = container.resolve(CycleLoggedNorth.self)
        }

        #expect(resolved == nil)
        #expect(messages == [thrown.description])
        #expect(
            thrown.description == """
                [Weft.circularDependency] Circular dependency: CycleLoggedNorth -> CycleLoggedSouth -> \
                CycleLoggedNorth.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let \
                CycleLoggedSouth take Lazy<CycleLoggedNorth> or Provider<CycleLoggedNorth>.
                """
        )
    }

    // MARK: - No depth limit

    @Test func chainOfAThousandDistinctServicesResolves() {
        let container = Self.chain(of: 1_000, closed: false)
        let lengths = Collected<Int>()
        let failures = Collected<String>()

        let thread = runOnThread {
            do {
                var link: Link? = try container.require(Link.self, name: "0")
                var length = 0
                while let current = link {
                    length += 1
                    link = current.next
                }
                lengths.append(length)
            } catch {
                failures.append("\(error)")
            }
        }

        #expect(thread.wait(seconds: 60))
        #expect(failures.values == [])
        #expect(lengths.values == [1_000])
    }

    @Test func cycleThroughAThousandServicesNamesEveryStep() throws {
        // Under a sanitizer every step costs many times more: the cycle is shorter there, the text the same.
        let length = underSanitizer ? 200 : 1_000
        let container = Self.chain(of: length, closed: true)
        let errors = Collected<ResolutionError>()

        let thread = runOnThread {
            do {
                _ = try container.require(Link.self, name: "0")
            } catch let error as ResolutionError {
                errors.append(error)
            } catch {}
        }

        #expect(thread.wait(seconds: 60))
        let error = try #require(errors.values.first)
        let steps = (0..<length).map { "Link[\"\($0)\"]" } + ["Link[\"0\"]"]
        #expect(error.reason == .circularDependency)
        #expect(error.path == steps)
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: \(steps.joined(separator: " -> ")).
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let \
                Link["\(length - 1)"] take Lazy<Link> or Provider<Link> (named "0").
                """
        )
    }

    @Test func sameServiceReachedTwiceThroughADiamondIsNotACycle() throws {
        let bottomCalls = Counter()
        let container = Container()
        container.register(Diamond.self) { r in
            Diamond(left: try r.require(CycA.self), right: try r.require(CycB.self))
        }
        container.register(CycA.self) { r in CycA(next: try r.require(CycC.self)) }
        container.register(CycB.self) { r in CycB(next: try r.require(CycC.self)) }
        container.register(CycC.self) { _ in
            bottomCalls.increment()
            return CycC(next: Link(next: nil))
        }

        let diamond = try container.require(Diamond.self)

        let left = try #require(diamond.left.next as? CycC)
        let right = try #require(diamond.right.next as? CycC)
        #expect(left === right)
        #expect(bottomCalls.value == 1)
    }

    // MARK: - Cycles through initCompleted: no factory runs twice in one graph

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
}
