import Testing
import Weft

/// A child's decorated copy of a registration it inherits follows its ancestors when they remove it: the child's
/// resolve then fails as an undecorated child's would, and decorates what the ancestors register again.
@Suite struct InheritedDecorationRemovalTests {
    protocol Repository: AnyObject, Sendable { var trail: [String] { get } }

    final class SQLRepository: Repository {
        let tag: String
        init(_ tag: String = "sql") { self.tag = tag }
        var trail: [String] { [tag] }
    }

    final class Wrapper: Repository {
        let inner: any Repository
        let tag: String
        init(_ inner: any Repository, tag: String) { (self.inner, self.tag) = (inner, tag) }
        var trail: [String] { inner.trail + [tag] }
    }

    protocol Animal: AnyObject, Sendable { var sound: String { get } }

    final class Cat: Animal {
        var sound: String { "meow" }
    }

    final class Loud: Animal {
        let inner: any Animal
        init(_ inner: any Animal) { self.inner = inner }
        var sound: String { inner.sound.uppercased() }
    }

    /// The error resolving `Repository` from `container` throws, as text.
    private func failure(of container: Container, name: String? = nil) -> String? {
        do {
            _ = try container.require(Repository.self, name: name)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func childsDecoratedServiceIsNotRegisteredOnceTheParentRemovesAll() throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        #expect(try child.require(Repository.self).trail == ["sql", "child"])

        parent.removeAll()

        let undecorated = Container(parent: parent)
        let expected = try #require(failure(of: undecorated))
        #expect(failure(of: child) == expected)
        #expect(child.resolve(Repository.self) == nil)
        #expect(!child.hasAnyRegistration(of: Repository.self))
        #expect(throws: ResolutionError.self) { try child.require(Repository.self) }
    }

    @Test func childDecoratesWhatTheParentRegistersAgainAfterRemovingAll() throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository("old") }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        parent.removeAll()
        parent.register(Repository.self) { _ in SQLRepository("new") }

        #expect(try child.require(Repository.self).trail == ["new", "child"])
        #expect(try parent.require(Repository.self).trail == ["new"])
    }

    @Test func childDecoratesTheGrandparentsRegistrationOnceTheParentsShadowingOneIsRemoved() throws {
        let grandparent = Container()
        grandparent.register(Repository.self) { _ in SQLRepository("grandparent") }
        let parent = Container(parent: grandparent)
        parent.register(Repository.self) { _ in SQLRepository("parent") }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        #expect(try child.require(Repository.self).trail == ["parent", "child"])

        parent.removeAll()

        #expect(try child.require(Repository.self).trail == ["grandparent", "child"])
    }

    @Test func grandchildsDecoratedCopyOfTheChildsCopyGoesWhenTheParentRemovesAll() throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository("old") }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        let grandchild = Container(parent: child)
        grandchild.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "grandchild") }
        #expect(try grandchild.require(Repository.self).trail == ["old", "child", "grandchild"])

        parent.removeAll()
        #expect(grandchild.resolve(Repository.self) == nil)
        #expect(child.resolve(Repository.self) == nil)

        parent.register(Repository.self) { _ in SQLRepository("new") }
        #expect(try grandchild.require(Repository.self).trail == ["new", "child", "grandchild"])
    }

    @Test func childsDecoratedForwardIsNotRegisteredOnceTheParentRemovesAll() throws {
        let parent = Container()
        parent.register(Cat.self) { _ in Cat() }.inObjectScope(.container).implements((any Animal).self)
        let child = Container(parent: parent)
        child.decorate((any Animal).self) { _, inner in Loud(inner) }
        #expect(try child.require((any Animal).self).sound == "MEOW")

        parent.removeAll()

        #expect(child.resolve((any Animal).self) == nil)
        #expect(child.resolve(Cat.self) == nil)
        #expect(!child.hasAnyRegistration(of: Cat.self))
    }

    @Test func childsDecoratedRegistrationWithArgumentsIsNotRegisteredOnceTheParentRemovesAll() throws {
        let parent = Container()
        parent.register(Repository.self) { (_, tag: String) in SQLRepository(tag) }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        #expect(try child.require(Repository.self, argument: "arg").trail == ["arg", "child"])

        parent.removeAll()

        #expect(child.resolve(Repository.self, argument: "arg") == nil)
        #expect(!child.hasAnyRegistration(of: Repository.self))
    }

    @Test func childsOwnDecoratedRegistrationStaysWhenTheParentRemovesAll() throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository("parent") }
        let child = Container(parent: parent)
        child.register(Repository.self) { _ in SQLRepository("own") }
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }

        parent.removeAll()

        #expect(try child.require(Repository.self).trail == ["own", "child"])
    }

    @Test func childsOtherRegistrationsAreFoundAfterManyDecoratedCopiesGo() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let names = (0..<100).map { "repository-\($0)" }
        for name in names {
            parent.register(Repository.self, name: name) { _ in SQLRepository(name) }
            child.register(SQLRepository.self, name: name) { _ in SQLRepository("own-" + name) }
        }
        // Every other name decorated: the table keeps the child's own registrations between the copies.
        for name in names.enumerated().filter({ $0.offset.isMultiple(of: 2) }).map(\.element) {
            child.decorate(Repository.self, name: name) { _, inner in Wrapper(inner, tag: "child") }
        }

        parent.removeAll()

        for name in names {
            #expect(try child.require(SQLRepository.self, name: name).tag == "own-" + name)
            #expect(child.resolve(Repository.self, name: name) == nil)
        }
    }

    @Test func childDecoratingWhileItsParentRegistersAndRemovesEndsWithWhatTheParentHas() async throws {
        for _ in 0..<50 {
            let parent = Container()
            let child = Container(parent: parent)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for version in 0..<10 {
                        parent.register(Repository.self) { _ in SQLRepository("v\(version)") }
                        parent.removeAll()
                    }
                }
                group.addTask { child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") } }
            }
            #expect(child.resolve(Repository.self) == nil)
            parent.register(Repository.self) { _ in SQLRepository("last") }
            #expect(try child.require(Repository.self).trail == ["last", "child"])
        }
    }

    /// Counts the instances alive.
    final class Counted: Repository, @unchecked Sendable {
        let live: Counter
        init(_ live: Counter) {
            self.live = live
            live.increment()
        }
        deinit { live.decrement() }
        var trail: [String] { ["counted"] }
    }

    @Test func childrenThatDecorateAParentsSingletonLetGoOfTheirInstancesWhenTheyGo() throws {
        let live = Counter()
        let parent = Container()
        parent.register(Repository.self) { _ in Counted(live) }.inObjectScope(.container)
        _ = try parent.require(Repository.self)
        do {
            let children = (0..<20).map { _ in Container(parent: parent) }
            for child in children {
                child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
                _ = try child.require(Repository.self)
            }
            // Alive to here: an optimised build may release the children after their last use.
            withExtendedLifetime(children) { #expect(live.value == 21) }
        }
        // The parent's singleton only: each child's decorated copy, and its instance, went with the child.
        #expect(live.value == 1)
        parent.register(Repository.self) { _ in Counted(live) }.inObjectScope(.container)
        #expect(live.value == 0)
    }
}
