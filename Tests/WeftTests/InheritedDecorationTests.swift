import Testing
import Weft

/// A child's decorator of a service its ancestors register applies to the ancestor's registration whenever it is
/// made: before the decorator, after it, or replaced after it; the ancestor's own resolves stay undecorated.
@Suite struct InheritedDecorationTests {
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
        let sound: String
        init(_ sound: String = "meow") { self.sound = sound }
    }

    final class Loud: Animal {
        let inner: any Animal
        init(_ inner: any Animal) { self.inner = inner }
        var sound: String { inner.sound.uppercased() }
    }

    @Test func parentsRegistrationMadeAfterTheChildsDecoratorIsDecoratedForTheChild() throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        parent.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)

        let decorated = try child.require(Repository.self)
        #expect(decorated.trail == ["sql", "child"])
        #expect(decorated === (try child.require(Repository.self)))
        #expect(try parent.require(Repository.self).trail == ["sql"])
    }

    @Test func parentsRegistrationReplacedAfterTheChildsDecoratorIsDecoratedForTheChild() throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository("old") }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        parent.register(Repository.self) { _ in SQLRepository("new") }

        #expect(try child.require(Repository.self).trail == ["new", "child"])
        #expect(try parent.require(Repository.self).trail == ["new"])
    }

    @Test func parentsDecoratorDeclaredAfterTheChildsRunsFirstForTheChild() throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository() }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        parent.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "parent") }

        #expect(try child.require(Repository.self).trail == ["sql", "parent", "child"])
        #expect(try parent.require(Repository.self).trail == ["sql", "parent"])
    }

    @Test func grandparentsRegistrationMadeAfterTheDecoratorIsDecoratedForTheGrandchild() throws {
        let grandparent = Container()
        let parent = Container(parent: grandparent)
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        grandparent.register(Repository.self) { _ in SQLRepository() }

        #expect(try child.require(Repository.self).trail == ["sql", "child"])
        #expect(try parent.require(Repository.self).trail == ["sql"])
    }

    @Test func grandparentsRegistrationShadowedByTheParentsLeavesTheChildsCopyAlone() throws {
        let grandparent = Container()
        let parent = Container(parent: grandparent)
        parent.register(Repository.self) { _ in SQLRepository("parent") }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        let kept = try child.require(Repository.self)
        grandparent.register(Repository.self) { _ in SQLRepository("grandparent") }

        #expect(try child.require(Repository.self) === kept)
        #expect(kept.trail == ["parent", "child"])
    }

    @Test func childsOwnRegistrationIsNotReplacedByTheParentsLaterOne() throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        child.register(Repository.self) { _ in SQLRepository("own") }
        parent.register(Repository.self) { _ in SQLRepository("parent") }

        #expect(try child.require(Repository.self).trail == ["own", "child"])
    }

    @Test func parentsRegistrationWithArgumentsMadeAfterTheChildsDecoratorIsDecoratedForTheChild() throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        parent.register(Repository.self) { (_, tag: String) in SQLRepository(tag) }

        #expect(try child.require(Repository.self, argument: "arg").trail == ["arg", "child"])
        #expect(try parent.require(Repository.self, argument: "arg").trail == ["arg"])
    }

    @Test func parentsForwardMadeAfterTheChildsDecoratorIsDecoratedForTheChild() throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.decorate((any Animal).self) { _, inner in Loud(inner) }
        parent.register(Cat.self) { _ in Cat() }.inObjectScope(.container).implements((any Animal).self)

        let animal = try #require(try child.require((any Animal).self) as? Loud)
        #expect(animal.inner === (try parent.require(Cat.self)))
        #expect(try parent.require((any Animal).self).sound == "meow")
    }

    @Test func parentsAsyncRegistrationMadeAfterTheChildsDecoratorIsDecoratedForTheChild() async throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.decorate(Repository.self) { (_: AsyncResolver, inner: any Repository) in
            await Task.yield()
            return Wrapper(inner, tag: "child")
        }
        parent.register(Repository.self) { _ in
            await Task.yield()
            return SQLRepository()
        }

        #expect(try await child.async.require(Repository.self).trail == ["sql", "child"])
        #expect(try await parent.async.require(Repository.self).trail == ["sql"])
    }

    @Test func verifyOfTheChildChecksTheDecoratorOfALaterParentRegistration() throws {
        final class Clock: Sendable {}
        let parent = Container()
        let child = Container(parent: parent)
        child.decorate(Repository.self) { r, inner in
            _ = try r.require(Clock.self)
            return inner
        }
        parent.register(Repository.self) { _ in SQLRepository() }

        let missing = child.verificationReport().problems(ofKind: .missingRegistration)
        #expect(missing.map(\.path.last) == ["Clock"])
        try parent.verify()
    }

    @Test func childDecoratingWhileItsParentRegistersEndsWithTheParentsLastRegistrationDecorated() async throws {
        for _ in 0..<50 {
            let parent = Container()
            let child = Container(parent: parent)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for version in 0..<20 { parent.register(Repository.self) { _ in SQLRepository("v\(version)") } }
                }
                group.addTask { child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") } }
            }
            #expect(try child.require(Repository.self).trail == ["v19", "child"])
        }
    }

    @Test func childAddingDecoratorsWhileItsParentRegistersEndsWithEveryDecoratorOfTheChild() async throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let parent = Container()
            parent.register(Repository.self) { _ in SQLRepository("v0") }
            let child = Container(parent: parent)
            child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "c0") }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for version in 1..<20 { parent.register(Repository.self) { _ in SQLRepository("v\(version)") } }
                }
                group.addTask {
                    for index in 1..<5 {
                        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "c\(index)") }
                    }
                }
            }
            #expect(try child.require(Repository.self).trail == ["v19", "c0", "c1", "c2", "c3", "c4"])
        }
    }

    @Test func childsOwnRegistrationMadeWhileItsParentRegistersIsNotReplacedByACopyOfTheParents() async throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let parent = Container()
            parent.register(Repository.self) { _ in SQLRepository("v0") }
            let child = Container(parent: parent)
            child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for version in 1..<20 { parent.register(Repository.self) { _ in SQLRepository("v\(version)") } }
                }
                group.addTask { child.register(Repository.self) { _ in SQLRepository("own") } }
            }
            #expect(try child.require(Repository.self).trail == ["own", "child"])
        }
    }

    @Test func childsDecoratorStillAppliesToItsParentsRegistrationAfterTheChildRemovesAll() throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository() }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
        child.register(SQLRepository.self) { _ in SQLRepository("own") }
        child.removeAll()

        #expect(try child.require(Repository.self).trail == ["sql", "child"])
        #expect(child.resolve(SQLRepository.self) == nil)
        parent.register(Repository.self) { _ in SQLRepository("new") }
        #expect(try child.require(Repository.self).trail == ["new", "child"])
    }

    @Test func childDecoratingWhileItsParentDecoratesEndsWithEveryDecoratorOnce() async throws {
        for _ in 0..<200 {
            let parent = Container()
            parent.register(Repository.self) { _ in SQLRepository() }
            let child = Container(parent: parent)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for index in 0..<5 {
                        parent.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "p\(index)") }
                    }
                }
                group.addTask { child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") } }
            }
            #expect(try child.require(Repository.self).trail == ["sql", "p0", "p1", "p2", "p3", "p4", "child"])
        }
    }

    @Test func childFollowsTheParentsDecoratorWhenDecorateReturnsWhileTheParentRegistersOnAnotherThread() throws {
        final class Other: Sendable {}
        for _ in 0..<20 {
            let parent = Container()
            parent.register(Repository.self) { _ in SQLRepository() }
            let child = Container(parent: parent)
            child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }
            let stop = Collected<Bool>()
            // Registrations of another service queue notices too, which this thread may take and tell.
            let registering = runOnThread {
                while stop.values.isEmpty { parent.register(Other.self) { _ in Other() } }
            }
            var expected = ["sql"]
            for index in 0..<20 {
                parent.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "p\(index)") }
                expected.append("p\(index)")
                let trail = try child.require(Repository.self).trail
                #expect(trail == expected + ["child"])
            }
            stop.append(true)
            #expect(registering.wait(seconds: 30))
        }
    }
}
