import Dispatch
import Testing
import Weft

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
}
