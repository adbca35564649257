import Foundation
import Testing
import Weft

/// ZIKRouter's "Circular Dependency" page (seed 004) in Weft: each side's `initCompleted` callback makes the
/// other side with a *preparation* that hands itself over, so the other side's own callback sees its
/// reference already set and does not look it up again.
struct SeedZIKRouterTests {
    protocol Parent: AnyObject {
        var child: (any Child)? { get set }
    }

    protocol Child: AnyObject {
        var parent: (any Parent)? { get set }
    }

    final class ParentObject: Parent {
        var child: (any Child)?
    }

    final class ChildObject: Child {
        // Strong, as in the seed: the pair is a reference cycle, which each test breaks at its end.
        var parent: (any Parent)?
    }

    /// The router pair of the seed as two registrations; counts each factory call.
    private func container(parents: Counter, children: Counter) -> Container {
        let container = Container()
        container.register((any Parent).self) { _ in
            parents.increment()
            return ParentObject()
        }
        .initCompleted { r, parent in
            // Only get the dependency when the child was not set.
            guard parent.child == nil else { return }
            parent.child = try r.require((any Child).self, preparing: { child in child.parent = parent })
        }
        container.register((any Child).self) { _ in
            children.increment()
            return ChildObject()
        }
        .initCompleted { r, child in
            guard child.parent == nil else { return }
            child.parent = try r.require((any Parent).self, preparing: { parent in parent.child = child })
        }
        return container
    }

    @Test func resolvingTheParentClosesTheCycleThroughTheChildsPreparation() throws {
        let parents = Counter()
        let children = Counter()
        let container = container(parents: parents, children: children)

        let parent = try container.require((any Parent).self)

        let child = try #require(parent.child)
        #expect(child.parent === parent)
        #expect(parents.value == 1)
        #expect(children.value == 1)
        parent.child = nil
    }

    @Test func resolvingTheChildClosesTheCycleFromTheOtherSide() throws {
        let parents = Counter()
        let children = Counter()
        let container = container(parents: parents, children: children)

        let child = try container.require((any Child).self)

        let parent = try #require(child.parent)
        #expect(parent.child === child)
        #expect(parents.value == 1)
        #expect(children.value == 1)
        child.parent = nil
    }

    @Test func everyResolveMakesAFreshPairWhenTheServicesAreGraphScoped() throws {
        let parents = Counter()
        let children = Counter()
        let container = container(parents: parents, children: children)

        let first = try container.require((any Parent).self)
        let second = try container.require((any Parent).self)

        #expect(first !== second)
        #expect(first.child !== second.child)
        #expect(parents.value == 2)
        #expect(children.value == 2)
        first.child = nil
        second.child = nil
    }

    @Test func thePreparationRunsAfterTheFactoryAndBeforeTheInstancesOwnCallbacks() throws {
        final class Service {
            var steps: [String] = []
        }
        let container = Container()
        container.register(Service.self) { _ in
            let service = Service()
            service.steps.append("factory")
            return service
        }
        .initCompleted { _, service in service.steps.append("initCompleted") }

        let service = try container.require(Service.self, preparing: { $0.steps.append("preparation") })

        #expect(service.steps == ["factory", "preparation", "initCompleted"])
    }

    @Test func thePreparationDoesNotRunOnAnInstanceThatAlreadyExists() throws {
        final class Service {}
        let container = Container()
        container.register(Service.self) { _ in Service() }.inObjectScope(.container)
        let existing = try container.require(Service.self)
        var prepared = false

        let again = try container.require(Service.self, preparing: { _ in prepared = true })

        #expect(again === existing)
        #expect(!prepared)
    }

    @Test func thePreparationAppliesOnlyToTheRequestedInstanceNotToItsDependencies() throws {
        final class Leaf {
            var marked = false
        }
        final class Root {
            let leaf: Leaf
            var marked = false
            init(leaf: Leaf) { self.leaf = leaf }
        }
        let container = Container()
        container.register(Leaf.self) { _ in Leaf() }
        container.register(Root.self) { r in Root(leaf: try r.require(Leaf.self)) }

        let root = try container.require(Root.self, preparing: { $0.marked = true })

        #expect(root.marked)
        #expect(!root.leaf.marked)
    }

    @Test func aThrowingPreparationFailsTheResolutionWithThePath() throws {
        struct Refused: Error {}
        final class Service {}
        let container = Container()
        container.register(Service.self) { _ in Service() }

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Service.self, preparing: { _ in throw Refused() })
        }

        #expect(error.reason == .initCompletedFailed)
        #expect(error.underlyingError is Refused)
        #expect(error.path.last?.contains("Service") == true)
        #expect(container.resolve(Service.self, preparing: { _ in throw Refused() }) == nil)
    }
}
