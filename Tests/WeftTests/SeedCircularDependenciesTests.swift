import Foundation
import Testing
import Weft

/// Every example of the seed page "Circular Dependencies" (Swinject's documentation), compiled as written
/// with `import Weft`. The page reuses the names `Parent` and `Child` for different shapes, so each example
/// declares its own types in its own suite.
///
/// Swinject's page warns that a factory on a cycle "might be invoked twice"; Weft promises that no factory
/// runs twice inside one object graph, so the counting tests expect exactly one call each.
@Suite struct SeedCircularDependenciesTests {
    // MARK: - Initializer/Property Dependencies

    @Suite struct InitializerProperty {
        protocol ParentProtocol: AnyObject {}
        protocol ChildProtocol: AnyObject {}

        class Parent: ParentProtocol {
            let child: ChildProtocol?
            init(child: ChildProtocol?) {
                self.child = child
            }
        }

        class Child: ChildProtocol {
            weak var parent: ParentProtocol?
        }

        @Test func childsWeakParentIsTheParentThatHoldsIt() throws {
            let container = Container()
            container.register(ParentProtocol.self) { r in
                Parent(child: r.resolve(ChildProtocol.self)!)
            }
            container.register(ChildProtocol.self) { _ in Child() }
                .initCompleted { r, c in
                    let child = c as! Child
                    child.parent = r.resolve(ParentProtocol.self)
                }

            let parent = try #require(container.resolve(ParentProtocol.self) as? Parent)
            let child = try #require(parent.child as? Child)
            #expect(child.parent === parent)
        }

        @Test func eachFactoryAndCallbackRunsExactlyOnce() throws {
            let container = Container()
            let parentFactory = Counter()
            let childFactory = Counter()
            let childCallback = Counter()
            // The page's registrations, with one counting line added to each closure.
            container.register(ParentProtocol.self) { r in
                parentFactory.increment()
                return Parent(child: r.resolve(ChildProtocol.self)!)
            }
            container.register(ChildProtocol.self) { _ in
                childFactory.increment()
                return Child()
            }
            .initCompleted { r, c in
                childCallback.increment()
                let child = c as! Child
                child.parent = r.resolve(ParentProtocol.self)
            }

            let parent = try #require(container.resolve(ParentProtocol.self) as? Parent)
            #expect((parent.child as? Child)?.parent === parent)
            #expect(parentFactory.value == 1)
            #expect(childFactory.value == 1)
            #expect(childCallback.value == 1)
        }
    }

    // MARK: - Property/Property Dependencies

    @Suite struct PropertyProperty {
        protocol ParentProtocol: AnyObject {}
        protocol ChildProtocol: AnyObject {}

        class Parent: ParentProtocol {
            var child: ChildProtocol?
        }

        class Child: ChildProtocol {
            weak var parent: ParentProtocol?
        }

        @Test func childsWeakParentIsTheParentThatHoldsIt() throws {
            let container = Container()
            container.register(ParentProtocol.self) { r in
                let parent = Parent()
                parent.child = r.resolve(ChildProtocol.self)!
                return parent
            }
            container.register(ChildProtocol.self) { _ in Child() }
                .initCompleted { r, c in
                    let child = c as! Child
                    child.parent = r.resolve(ParentProtocol.self)
                }

            let parent = try #require(container.resolve(ParentProtocol.self) as? Parent)
            let child = try #require(parent.child as? Child)
            #expect(child.parent === parent)
        }

        @Test func eachFactoryRunsExactlyOnceAlthoughSwinjectMayRunTheParentsTwice() throws {
            let container = Container()
            let parentFactory = Counter()
            let childFactory = Counter()
            // The page's registrations, with one counting line added to each factory.
            container.register(ParentProtocol.self) { r in
                parentFactory.increment()
                let parent = Parent()
                parent.child = r.resolve(ChildProtocol.self)!
                return parent
            }
            container.register(ChildProtocol.self) { _ in
                childFactory.increment()
                return Child()
            }
            .initCompleted { r, c in
                let child = c as! Child
                child.parent = r.resolve(ParentProtocol.self)
            }

            let parent = try #require(container.resolve(ParentProtocol.self) as? Parent)
            #expect((parent.child as? Child)?.parent === parent)
            #expect(parentFactory.value == 1)
            #expect(childFactory.value == 1)
        }

        @Test func eachResolveMakesANewPairInTheDefaultGraphScope() throws {
            let container = Container()
            container.register(ParentProtocol.self) { r in
                let parent = Parent()
                parent.child = r.resolve(ChildProtocol.self)!
                return parent
            }
            container.register(ChildProtocol.self) { _ in Child() }
                .initCompleted { r, c in
                    let child = c as! Child
                    child.parent = r.resolve(ParentProtocol.self)
                }

            let first = try #require(container.resolve(ParentProtocol.self) as? Parent)
            let second = try #require(container.resolve(ParentProtocol.self) as? Parent)
            #expect(first !== second)
            #expect(first.child !== second.child)
            #expect((second.child as? Child)?.parent === second)
        }
    }

    // MARK: - Remark: both ends of the cycle in initCompleted

    @Suite struct RemarkRefactoring {
        protocol ParentProtocol: AnyObject {}
        protocol ChildProtocol: AnyObject {}

        class Parent: ParentProtocol {
            var child: ChildProtocol?
        }

        class Child: ChildProtocol {
            weak var parent: ParentProtocol?
        }

        @Test func refactoredParentStillGetsAChildThatPointsBack() throws {
            let container = Container()
            container.register(ParentProtocol.self) { _ in Parent() }
                .initCompleted { r, p in
                    let parent = p as! Parent
                    parent.child = r.resolve(ChildProtocol.self)!
                }
            container.register(ChildProtocol.self) { _ in Child() }
                .initCompleted { r, c in
                    let child = c as! Child
                    child.parent = r.resolve(ParentProtocol.self)
                }

            let parent = try #require(container.resolve(ParentProtocol.self) as? Parent)
            let child = try #require(parent.child as? Child)
            #expect(child.parent === parent)
        }

        @Test func refactoredRegistrationsRunEachFactoryAndCallbackOnce() throws {
            let container = Container()
            let log = Collected<String>()
            // The page's refactored registrations, with one recording line added to each closure.
            container.register(ParentProtocol.self) { _ in
                log.append("Parent factory")
                return Parent()
            }
            .initCompleted { r, p in
                log.append("Parent initCompleted")
                let parent = p as! Parent
                parent.child = r.resolve(ChildProtocol.self)!
            }
            container.register(ChildProtocol.self) { _ in
                log.append("Child factory")
                return Child()
            }
            .initCompleted { r, c in
                log.append("Child initCompleted")
                let child = c as! Child
                child.parent = r.resolve(ParentProtocol.self)
            }

            let parent = try #require(container.resolve(ParentProtocol.self) as? Parent)
            #expect((parent.child as? Child)?.parent === parent)
            #expect(
                log.values == ["Parent factory", "Parent initCompleted", "Child factory", "Child initCompleted"]
            )
        }
    }

    // MARK: - Initializer/Initializer Dependencies: "Not supported."

    @Suite struct InitializerInitializer {
        protocol ParentProtocol: AnyObject {}
        protocol ChildProtocol: AnyObject {}

        class Parent: ParentProtocol {
            let child: ChildProtocol
            init(child: ChildProtocol) {
                self.child = child
            }
        }

        class Child: ChildProtocol {
            weak var parent: ParentProtocol?
            init(parent: ParentProtocol) {
                self.parent = parent
            }
        }

        /// Registers the unsupported shape. The factories use `require` rather than `resolve(...)!`, so that the
        /// cycle reaches the caller as an error instead of a force-unwrap crash inside a factory.
        private static func register(
            in container: Container,
            parentCalls: Counter,
            childCalls: Counter
        ) {
            container.register(ParentProtocol.self) { r in
                parentCalls.increment()
                return Parent(child: try r.require(ChildProtocol.self))
            }
            container.register(ChildProtocol.self) { r in
                childCalls.increment()
                return Child(parent: try r.require(ParentProtocol.self))
            }
        }

        @Test func requireThrowsCircularDependencyNamingEveryStep() throws {
            let container = Container()
            let parentCalls = Counter()
            let childCalls = Counter()
            Self.register(in: container, parentCalls: parentCalls, childCalls: childCalls)

            let error = try #require(throws: ResolutionError.self) {
                try container.require(ParentProtocol.self)
            }
            #expect(error.reason == .circularDependency)
            #expect(error.serviceType == "ParentProtocol")
            #expect(error.path == ["ParentProtocol", "ChildProtocol", "ParentProtocol"])
            #expect(error.description.contains("ParentProtocol -> ChildProtocol -> ParentProtocol"))
            #expect(
                error.description.hasPrefix(
                    "[Weft.circularDependency] Circular dependency: ParentProtocol -> ChildProtocol -> ParentProtocol."
                )
            )
            #expect(parentCalls.value == 1)
            #expect(childCalls.value == 1)
        }

        @Test func requireFromTheChildEndNamesTheCycleFromThere() throws {
            let container = Container()
            Self.register(in: container, parentCalls: Counter(), childCalls: Counter())

            let error = try #require(throws: ResolutionError.self) {
                try container.require(ChildProtocol.self)
            }
            #expect(error.reason == .circularDependency)
            #expect(error.path == ["ChildProtocol", "ParentProtocol", "ChildProtocol"])
            #expect(error.description.contains("ChildProtocol -> ParentProtocol -> ChildProtocol"))
        }

        @Test func resolveReturnsNilInsteadOfRecursingForever() {
            let container = Container()
            let parentCalls = Counter()
            let childCalls = Counter()
            Self.register(in: container, parentCalls: parentCalls, childCalls: childCalls)

            #expect(container.resolve(ParentProtocol.self) == nil)
            #expect(container.resolve(ChildProtocol.self) == nil)
            #expect(parentCalls.value == 2)
            #expect(childCalls.value == 2)
        }
    }
}
