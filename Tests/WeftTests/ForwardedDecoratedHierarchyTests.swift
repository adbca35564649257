import Dispatch
import Testing

@testable import Weft

/// A registration both decorated and forwarded, across child containers and threads: a child that decorates
/// what its parent registers and forwards resolves the forwarded type to its own decorated instance (the
/// parent's stay undecorated), and decorating while another thread forwards or resolves ends with one
/// registration for both types.
@Suite struct ForwardedDecoratedHierarchyTests {
    typealias Store = ForwardedStores.Store
    typealias FileStore = ForwardedStores.FileStore
    typealias Cached = ForwardedStores.Cached

    /// Checks that `container` resolves `Store` and `FileStore` to one instance with `trail`.
    private func expectShared(_ container: Container, trail: [String]) throws {
        let file = try container.require(FileStore.self)
        #expect(try container.require((any Store).self) === file)
        #expect(file.trail == trail)
    }

    @Test func childDecoratingWhatItsParentForwardsResolvesTheForwardToItsDecoratedInstance() throws {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }

        try expectShared(child, trail: ["file", "child"])
        try expectShared(parent, trail: ["file"])
        #expect(try child.require((any Store).self) !== (try parent.require((any Store).self)))
    }

    @Test func parentsForwardMadeAfterTheChildDecoratedResolvesTheChildsInstance() throws {
        let parent = Container()
        let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        entry.implements((any Store).self)

        try expectShared(child, trail: ["file", "child"])
        try expectShared(parent, trail: ["file"])
    }

    @Test func parentsRegistrationMadeAfterTheChildDecoratedSharesItsForwardWithTheChild() throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)

        try expectShared(child, trail: ["file", "child"])
        try expectShared(parent, trail: ["file"])
    }

    @Test func childsForwardGoesWithTheParentsRegistration() throws {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        _ = try child.require((any Store).self)
        parent.removeAll()

        let error = try #require(throws: ResolutionError.self) { try child.require((any Store).self) }
        #expect(error.reason == .missingRegistration)
        parent.register(FileStore.self) { _ in FileStore(["new"]) }.implements((any Store).self)
            .inObjectScope(.container)
        try expectShared(child, trail: ["new", "child"])
    }

    @Test func childsDecoratorOfTheForwardedTypeWrapsTheChildsDecoratedInstance() throws {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate((any Store).self) { _, inner in Cached(inner) }
        child.decorate(FileStore.self) { _, inner in inner.with("child") }

        let store = try #require(try child.require((any Store).self) as? Cached)
        #expect(store.inner === (try child.require(FileStore.self)))
        #expect(store.trail == ["file", "child", "cached"])
        try expectShared(parent, trail: ["file"])
    }

    /// Checks that `container` resolves `Store` to one `Cached` around the `FileStore` it resolves, with `trail`.
    private func expectCachedAroundShared(_ container: Container, trail: [String]) throws {
        let store = try #require(try container.require((any Store).self) as? Cached)
        #expect(store.inner === (try container.require(FileStore.self)))
        #expect(try container.require((any Store).self) === store)
        #expect(store.trail == trail)
    }

    @Test func parentsDecoratorOfTheForwardedTypeWrapsTheChildsDecoratedInstanceInTheChild() throws {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        parent.decorate((any Store).self) { _, inner in Cached(inner) }
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }

        try expectCachedAroundShared(child, trail: ["file", "child", "cached"])
        try expectCachedAroundShared(parent, trail: ["file", "cached"])
        #expect(try child.require((any Store).self) !== (try parent.require((any Store).self)))
    }

    @Test func parentDecoratingTheForwardedTypeAfterTheChildDecoratedReachesTheChildsInstance() throws {
        let parent = Container()
        let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        entry.implements((any Store).self)
        parent.decorate((any Store).self) { _, inner in Cached(inner) }

        try expectCachedAroundShared(child, trail: ["file", "child", "cached"])
        try expectCachedAroundShared(parent, trail: ["file", "cached"])
    }

    @Test func childsDecoratorsOfBothTypesComeAfterTheParentsOnTheChildsInstance() throws {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        parent.decorate((any Store).self) { _, inner in Cached(inner) }
        let child = Container(parent: parent)
        child.decorate((any Store).self) { _, inner in Cached(inner) }
        child.decorate(FileStore.self) { _, inner in inner.with("child") }

        let store = try #require(try child.require((any Store).self) as? Cached)
        let parents = try #require(store.inner as? Cached)
        #expect(parents.inner === (try child.require(FileStore.self)))
        #expect(store.trail == ["file", "child", "cached", "cached"])
        #expect(try child.require((any Store).self) === store)
        try expectCachedAroundShared(parent, trail: ["file", "cached"])
    }

    @Test func childsForwardThroughTheParentsDecoratorsGoesWithTheParentsRegistration() throws {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        parent.decorate((any Store).self) { _, inner in Cached(inner) }
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        _ = try child.require((any Store).self)
        parent.removeAll()

        let error = try #require(throws: ResolutionError.self) { try child.require((any Store).self) }
        #expect(error.reason == .missingRegistration)
        parent.register(FileStore.self) { _ in FileStore(["new"]) }.implements((any Store).self)
            .inObjectScope(.container)
        try expectCachedAroundShared(child, trail: ["new", "child", "cached"])
        try expectCachedAroundShared(parent, trail: ["new", "cached"])
    }

    @Test func childFollowsTheParentForwardingTheDecoratedTypeElsewhere() throws {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        parent.decorate((any Store).self) { _, inner in Cached(inner) }
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        try expectCachedAroundShared(child, trail: ["file", "child", "cached"])
        let other = parent.register(FileStore.self, name: "other") { _ in FileStore(["other"]) }
        parent.forward((any Store).self, to: other)

        // The child does not decorate the other registration: its `Store` is the parent's.
        #expect(try child.require((any Store).self).trail == ["other", "cached"])
        #expect(try parent.require((any Store).self).trail == ["other", "cached"])
        #expect(try child.require(FileStore.self).trail == ["file", "child"])
    }

    @Test func childsForwardWithArgumentsResolvesTheChildsDecoratedInstance() throws {
        let parent = Container()
        parent.register(FileStore.self) { (_, path: String) in FileStore([path]) }
            .implements((any Store).self)
            .inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }

        let store = try child.require((any Store).self, argument: "/a")
        #expect(store === (try child.require(FileStore.self, argument: "/a")))
        #expect(store.trail == ["/a", "child"])
        #expect(try parent.require((any Store).self, argument: "/a").trail == ["/a"])
    }

    @Test func decoratingWhileAnotherThreadForwardsEndsWithOneInstanceForBothTypes() throws {
        for _ in 0..<lighterUnderSanitizer(300) {
            let container = Container()
            let entry = container.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    container.decorate(FileStore.self) { _, inner in inner.with("audited") }
                } else {
                    entry.implements((any Store).self)
                }
            }
            try expectShared(container, trail: ["file", "audited"])
        }
    }

    @Test func decoratingWhileOtherThreadsResolveEndsWithOneInstanceForBothTypes() throws {
        for _ in 0..<lighterUnderSanitizer(100) {
            let container = Container()
            container.register(FileStore.self) { _ in FileStore() }.implements((any Store).self)
                .inObjectScope(.container)
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                if index == 0 {
                    container.decorate(FileStore.self) { _, inner in inner.with("first") }
                    container.decorate(FileStore.self) { _, inner in inner.with("second") }
                } else {
                    for _ in 0..<20 {
                        _ = container.resolve((any Store).self)
                        _ = container.resolve(FileStore.self)
                    }
                }
            }
            try expectShared(container, trail: ["file", "first", "second"])
        }
    }

    @Test func childDecoratingWhileItsParentDecoratesTheForwardedTypeEndsOnTheChildsInstance() throws {
        for _ in 0..<lighterUnderSanitizer(300) {
            let parent = Container()
            parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self)
                .inObjectScope(.container)
            let child = Container(parent: parent)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    child.decorate(FileStore.self) { _, inner in inner.with("child") }
                } else {
                    parent.decorate((any Store).self) { _, inner in Cached(inner) }
                }
            }
            try expectCachedAroundShared(child, trail: ["file", "child", "cached"])
            try expectCachedAroundShared(parent, trail: ["file", "cached"])
        }
    }

    /// In the race above, the child adds its decorated copy of the parent's registration under two keys at once: as
    /// the type the parent forwarded to it (one thread), and as the target of the parent's decorated forward of
    /// that type (another thread). Each addition finds the source and ticket its own thread expected; one that
    /// found none would be taken for the child's own registration, and displace the decorated forward for good.
    @Test func aCopyExpectedUnderTwoKeysAtOnceIsAddedUnderEachAsTheCopyOfItsSource() {
        let table = CompositionTable()
        let copy = ServiceEntry(
            serviceType: FileStore.self, plainFactory: { _ in FileStore() }, objectScope: .container)
        let store = ServiceKey(serviceType: (any Store).self, argumentsType: noArguments, name: nil)
        let forwarded = ServiceKey(
            serviceType: (any Store).self, argumentsType: noArguments, name: nil,
            option: ForwardedOption(target: FileStore.self))
        table.expectInheritedCopy(copy, under: store, of: 7, ticket: 1)
        table.expectInheritedCopy(copy, under: forwarded, of: 7, ticket: 2)

        #expect(table.noteAdded(copy, key: forwarded, current: nil))
        #expect(table.noteAdded(copy, key: store, current: nil))
        #expect(table.inheritedSource(of: forwarded) == 7)
        #expect(table.inheritedSource(of: store) == 7)
    }

    /// The other step of that race: the child stores its copy as the forwarded type from a reading of the parent
    /// made before the parent decorated that type, after the parent told it so; the parent's decorated forward,
    /// shared with the child, then takes the place of the copy instead of leaving the type undecorated.
    @Test func childsCopyStoredAsTheForwardedTypeGivesWayToTheParentsDecoratedForward() throws {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        parent.decorate((any Store).self) { _, inner in Cached(inner) }
        let file = ServiceKey(serviceType: FileStore.self, argumentsType: noArguments, name: nil)
        let store = ServiceKey(serviceType: (any Store).self, argumentsType: noArguments, name: nil)
        let copy = try #require(child.ownEntry(for: file) as? ServiceEntry<FileStore>)
        let source = try #require(parent.ownEntry(for: file))
        let ticket = try #require(child.lock.withLock { child.compositions?.takeTicket() })
        child.lock.withLock {
            child.compositions?.expectInheritedCopy(copy, under: store, of: source.serial, ticket: ticket)
        }
        child.add(copy, as: FileStore.self, key: store, quietly: true)
        #expect(child.ownEntry(for: store) === copy)

        child.shareDecoratedForward(
            under: store, ticket: try #require(child.lock.withLock { child.compositions?.takeTicket() }))
        try expectCachedAroundShared(child, trail: ["file", "child", "cached"])
        try expectCachedAroundShared(parent, trail: ["file", "cached"])
    }

    @Test func childDecoratingWhileItsParentForwardsEndsWithTheChildsInstanceForBothTypes() throws {
        for _ in 0..<lighterUnderSanitizer(300) {
            let parent = Container()
            let entry = parent.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
            let child = Container(parent: parent)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    child.decorate(FileStore.self) { _, inner in inner.with("child") }
                } else {
                    entry.implements((any Store).self)
                }
            }
            try expectShared(child, trail: ["file", "child"])
            try expectShared(parent, trail: ["file"])
        }
    }
}
