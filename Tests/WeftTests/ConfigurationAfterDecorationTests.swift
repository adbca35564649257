import Foundation
import Testing
import Weft

/// Configuring a registration after a decorator of it was declared: its scope, callbacks and forwarded types
/// apply to what resolves, as they do when configured before the decorator.
@Suite struct ConfigurationAfterDecorationTests {
    protocol Repository: AnyObject, Sendable { var trail: [String] { get } }
    protocol Store: AnyObject, Sendable {}

    final class SQLRepository: Repository, Store {
        var trail: [String] { ["sql"] }
    }

    final class Wrapper: Repository {
        let inner: any Repository
        let tag: String
        init(_ inner: any Repository, tag: String) { (self.inner, self.tag) = (inner, tag) }
        var trail: [String] { inner.trail + [tag] }
    }

    final class Greeter: Sendable {
        let name: String
        let loud: Bool
        init(_ name: String, loud: Bool = false) { (self.name, self.loud) = (name, loud) }
    }

    @Test func scopeSetAfterDecoratingApplies() throws {
        let container = Container()
        let made = Counter()
        let entry = container.register(Repository.self) { _ in
            made.increment()
            return SQLRepository()
        }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "logged") }
        entry.inObjectScope(.container)

        let first = try container.require(Repository.self)
        #expect(first === (try container.require(Repository.self)))
        #expect(first.trail == ["sql", "logged"])
        #expect(made.value == 1)
        #expect(container.description.contains("ObjectScope: container"))
    }

    @Test func callbackAddedAfterDecoratingRunsOnTheDecoratedInstance() throws {
        let container = Container()
        let entry = container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "logged") }
        let seen = Collected<[String]>()
        entry.initCompleted { _, repository in seen.append(repository.trail) }

        _ = try container.require(Repository.self)
        #expect(seen.values == [["sql", "logged"]])
    }

    @Test func chainedConfigurationAfterSeveralDecoratorsApplies() throws {
        let container = Container()
        let entry = container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "first") }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "second") }
        let seen = Collected<[String]>()
        entry.inObjectScope(.transient).initCompleted { _, repository in seen.append(repository.trail) }
            .inObjectScope(.container)

        let first = try container.require(Repository.self)
        #expect(first === (try container.require(Repository.self)))
        #expect(seen.values == [["sql", "first", "second"]])
    }

    @Test func typeForwardedAfterDecoratingResolvesAsOneForwardedBefore() throws {
        // A forwarded type resolves the service's instance, which is the decorated one.
        final class StoredWrapper: Repository, Store {
            let inner: any Repository
            init(_ inner: any Repository) { self.inner = inner }
            var trail: [String] { inner.trail + ["logged"] }
        }
        let before = Container()
        before.register(Repository.self) { _ in SQLRepository() }.implements((any Store).self)
        before.decorate(Repository.self) { _, inner in StoredWrapper(inner) }
        let after = Container()
        let entry = after.register(Repository.self) { _ in SQLRepository() }
        after.decorate(Repository.self) { _, inner in StoredWrapper(inner) }
        entry.implements((any Store).self).inObjectScope(.container)

        for container in [before, after] {
            #expect(try container.require((any Store).self) is StoredWrapper)
            #expect(try container.require(Repository.self).trail == ["sql", "logged"])
        }
        #expect(try after.require((any Store).self) === (try after.require(Repository.self)))
    }

    @Test func scopeSetOnAParentsRegistrationAfterAChildDecoratedItAppliesToTheChildsCopy() throws {
        let parent = Container()
        let entry = parent.register(Repository.self) { _ in SQLRepository() }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        let seen = Collected<[String]>()
        entry.inObjectScope(.container).initCompleted { _, repository in seen.append(repository.trail) }

        let decorated = try child.require(Repository.self)
        #expect(decorated === (try child.require(Repository.self)))
        #expect(decorated.trail == ["sql", "child"])
        let own = try parent.require(Repository.self)
        #expect(own === (try parent.require(Repository.self)))
        #expect(own.trail == ["sql"])
        #expect(seen.values == [["sql", "child"], ["sql"]])
    }

    @Test func scopeSetOnAParentsRegistrationAppliesToAChildsCopyAfterAnotherDecoratingChildWent() throws {
        let parent = Container()
        let entry = parent.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)
        // Children made one after the other, usually at the same address: a child that went must not pass for
        // the next one among the registration's followers.
        for _ in 0..<20 {
            do {
                let gone = Container(parent: parent)
                for _ in 0..<3 { gone.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "gone") } }
            }
            let child = Container(parent: parent)
            child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
            entry.inObjectScope(.transient)
            #expect(try child.require(Repository.self) !== child.require(Repository.self))
            entry.inObjectScope(.container)
            #expect(try child.require(Repository.self) === child.require(Repository.self))
        }
    }

    /// A decorated `Store`, counting the instances alive.
    final class CountedStore: Store, @unchecked Sendable {
        let inner: any Store
        let live: Counter
        init(_ inner: any Store, live: Counter) {
            (self.inner, self.live) = (inner, live)
            live.increment()
        }
        deinit { live.decrement() }
    }

    @Test func scopeSetOnARegistrationAppliesToTheDecoratedForwardsOfEveryChild() throws {
        let parent = Container()
        let entry = parent.register(SQLRepository.self) { _ in SQLRepository() }.inObjectScope(.container)
            .implements(Store.self)
        let live = Counter()
        do {
            let children = (0..<3).map { _ in Container(parent: parent) }
            for child in children {
                child.decorate(Store.self) { _, inner in CountedStore(inner, live: live) }
                #expect(try child.require(Store.self) === child.require(Store.self))
            }
            entry.inObjectScope(.transient)
            for child in children {
                #expect(try child.require(Store.self) !== child.require(Store.self))
            }
            entry.inObjectScope(.container)
            for child in children { _ = try child.require(Store.self) }
            // Alive to here: an optimised build may release the children after their last use.
            withExtendedLifetime(children) { #expect(live.value == 3) }
        }
        // Each child's decorated forward, with its kept instance, went with the child.
        #expect(live.value == 0)
    }

    @Test func scopeSetAfterDecoratingARegistrationWithArgumentsApplies() throws {
        let container = Container()
        let entry = container.register(Greeter.self) { (_, name: String) in Greeter(name) }
        container.decorate(Greeter.self) { _, inner in Greeter(inner.name, loud: true) }
        entry.inObjectScope(.container)

        let first = try container.require(Greeter.self, argument: "Ana")
        #expect(first === (try container.require(Greeter.self, argument: "Bob")))
        #expect(first.loud)
    }

    @Test func scopeSetAfterAnAsyncDecoratorApplies() async throws {
        let container = Container()
        let made = Counter()
        let entry = container.register(Repository.self) { _ in
            made.increment()
            return SQLRepository()
        }
        container.decorate(Repository.self) { (_: AsyncResolver, inner: any Repository) in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }
        entry.inObjectScope(.container)

        let first = try await container.async.require(Repository.self)
        #expect(first === (try await container.async.require(Repository.self)))
        #expect(made.value == 1)
    }

    @Test func instanceKeptBeforeTheScopeChangesIsDropped() throws {
        let container = Container()
        let entry = container.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "logged") }
        let kept = try container.require(Repository.self)
        entry.inObjectScope(.transient)

        #expect(kept !== (try container.require(Repository.self)))
        #expect(try container.require(Repository.self) !== (try container.require(Repository.self)))
    }
}
