import Dispatch
import Testing

@testable import Weft

/// A type forwarded in one container to another container's registration resolves what it would resolve
/// forwarded in the registration's own container: the decorated instance, whether the decorator was declared
/// before the forward or after it; the forwarding container's own decorators apply too.
@Suite struct ForeignForwardTests {
    typealias Store = ForwardedStores.Store
    typealias FileStore = ForwardedStores.FileStore
    typealias Cached = ForwardedStores.Cached

    /// A parent with a `.container` `FileStore` and a child; `decorateFirst` declares the parent's decorator before
    /// the child forwards `Store` to the parent's registration, else after.
    private func forwarded(decorateFirst: Bool) -> (parent: Container, child: Container) {
        let parent = Container()
        let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        let child = Container(parent: parent)
        if decorateFirst { parent.decorate(FileStore.self) { _, inner in inner.with("parent") } }
        child.forward((any Store).self, to: entry)
        if !decorateFirst { parent.decorate(FileStore.self) { _, inner in inner.with("parent") } }
        return (parent, child)
    }

    @Test(arguments: [true, false])
    func forwardToAParentsDecoratedRegistrationResolvesTheDecoratedInstance(decorateFirst: Bool) throws {
        let (parent, child) = forwarded(decorateFirst: decorateFirst)

        let file = try parent.require(FileStore.self)
        #expect(file.trail == ["file", "parent"])
        #expect(try child.require((any Store).self) === file)
        #expect(try child.require(FileStore.self) === file)
    }

    @Test(arguments: [true, false])
    func forwardInAChildThatDecoratesResolvesTheChildsDecoratedInstance(decorateFirst: Bool) throws {
        let parent = Container()
        let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        if decorateFirst { parent.decorate(FileStore.self) { _, inner in inner.with("parent") } }
        child.forward((any Store).self, to: entry)
        if !decorateFirst { parent.decorate(FileStore.self) { _, inner in inner.with("parent") } }

        let file = try child.require(FileStore.self)
        #expect(file.trail == ["file", "parent", "child"])
        #expect(try child.require((any Store).self) === file)
        #expect(try parent.require(FileStore.self).trail == ["file", "parent"])
    }

    @Test(arguments: [true, false])
    func childsDecoratorOfTheForwardedTypeWrapsTheDecoratedInstance(decorateFirst: Bool) throws {
        let parent = Container()
        let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate((any Store).self) { _, inner in Cached(inner) }
        if decorateFirst { parent.decorate(FileStore.self) { _, inner in inner.with("parent") } }
        child.forward((any Store).self, to: entry)
        if !decorateFirst { parent.decorate(FileStore.self) { _, inner in inner.with("parent") } }

        let store = try #require(try child.require((any Store).self) as? Cached)
        #expect(store.inner === (try parent.require(FileStore.self)))
        #expect(store.trail == ["file", "parent", "cached"])
    }

    @Test func aSecondDecoratorOfTheOwnerIsFollowedToo() throws {
        let (parent, child) = forwarded(decorateFirst: false)
        parent.decorate(FileStore.self) { _, inner in inner.with("again") }

        let file = try parent.require(FileStore.self)
        #expect(file.trail == ["file", "parent", "again"])
        #expect(try child.require((any Store).self) === file)
    }

    @Test func forwardingWhileTheOwnerDecoratesOnAnotherThreadEndsOnTheDecoratedInstance() throws {
        for _ in 0..<lighterUnderSanitizer(300) {
            let parent = Container()
            let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
            let child = Container(parent: parent)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    parent.decorate(FileStore.self) { _, inner in inner.with("first") }
                    parent.decorate(FileStore.self) { _, inner in inner.with("second") }
                } else {
                    child.forward((any Store).self, to: entry)
                }
            }
            let file = try parent.require(FileStore.self)
            #expect(file.trail == ["file", "first", "second"])
            #expect(try child.require((any Store).self) === file)
        }
    }

    @Test func aTypeTheForwardingContainerGaveSomethingElseStays() throws {
        let parent = Container()
        let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.forward((any Store).self, to: entry)
        child.register((any Store).self) { _ in FileStore(["own"]) }
        parent.decorate(FileStore.self) { _, inner in inner.with("parent") }

        #expect(try child.require((any Store).self).trail == ["own"])
    }

    @Test func aTypeTheForwardingContainerRegistersWhileTheOwnerDecoratesStaysItsOwn() throws {
        for round in 0..<lighterUnderSanitizer(3_000) {
            let parent = Container()
            let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
            let child = Container(parent: parent)
            child.forward((any Store).self, to: entry)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    parent.decorate(FileStore.self) { _, inner in inner.with("parent") }
                } else {
                    // A delay that varies from round to round, so that the registration lands at every point of
                    // the owner's decorating, among them between the child's reading of the key and its move.
                    for _ in 0..<round % 40 { _ = child.hasAnyRegistration(of: FileStore.self) }
                    child.register((any Store).self) { _ in FileStore(["own"]) }
                }
            }
            #expect(try child.require((any Store).self).trail == ["own"])
        }
    }

    @Test func forwardingToAnotherContainersRegistrationLeavesBothWithoutACompositionTable() throws {
        let parent = Container()
        let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.forward((any Store).self, to: entry)

        // Neither decorates: what either registers from now on takes the ordinary path of `add`.
        #expect(!parent.hasCompositionTable)
        #expect(!child.hasCompositionTable)
        let forwarded = try child.require((any Store).self)
        #expect(forwarded === (try parent.require(FileStore.self)))

        // The owner's later registrations behave as before: a replacement resolves, a new one resolves, and the
        // forwarded type keeps the registration it was forwarded to (its kept instance goes with the replacement).
        parent.register(FileStore.self) { _ in FileStore(["replaced"]) }
        parent.register((any Store).self, name: "other") { _ in FileStore(["other"]) }
        #expect(try parent.require(FileStore.self).trail == ["replaced"])
        #expect(try parent.require((any Store).self, name: "other").trail == ["other"])
        let kept = try child.require((any Store).self)
        #expect(kept.trail == ["file"] && kept !== forwarded)
        #expect(try child.require((any Store).self) === kept)
        child.register(FileStore.self, name: "own") { _ in FileStore(["own"]) }
        #expect(try child.require(FileStore.self, name: "own").trail == ["own"])
        #expect(!parent.hasCompositionTable)
        #expect(!child.hasCompositionTable)
    }

    @Test func anOwnerDecoratingAfterTheForwardMakesTheTablesItNeedsAndTheForwardFollows() throws {
        let parent = Container()
        let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.forward((any Store).self, to: entry)
        parent.decorate(FileStore.self) { _, inner in inner.with("parent") }

        #expect(parent.hasCompositionTable)
        #expect(child.hasCompositionTable)
        let file = try parent.require(FileStore.self)
        #expect(file.trail == ["file", "parent"])
        #expect(try child.require((any Store).self) === file)
        parent.register((any Store).self, name: "later") { _ in FileStore(["later"]) }
        #expect(try parent.require((any Store).self, name: "later").trail == ["later"])
    }
}
