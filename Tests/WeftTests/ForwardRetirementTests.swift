import Dispatch
import Testing

@testable import Weft

/// A decorated copy published in place of a registration moves the types forwarded to it onto the copy; what it
/// moves out is retired as a replaced registration is (kept until no resolve can use it, its kept instances let
/// go of outside the container's lock), even when no other key held it.
@Suite struct ForwardRetirementTests {
    typealias Store = ForwardedStores.Store
    typealias FileStore = ForwardedStores.FileStore

    /// A weak reference to an instance, to see when it is let go of.
    final class Watched: @unchecked Sendable {
        weak var instance: AnyObject?
        init(_ instance: AnyObject) { self.instance = instance }
    }

    /// A store whose deinit resolves from a container, as a deinit may.
    final class ResolvingStore: Store, @unchecked Sendable {
        let trail: [String]
        let onDeinit: @Sendable () -> Void
        init(_ trail: [String], onDeinit: @escaping @Sendable () -> Void) {
            (self.trail, self.onDeinit) = (trail, onDeinit)
        }
        func with(_ tag: String) -> ResolvingStore { ResolvingStore(trail + [tag], onDeinit: onDeinit) }
        deinit { onDeinit() }
    }

    @Test func aRegistrationDecoratedTwiceForwardedAndReplacedLetsGoOfItsInstanceOutsideTheLock() throws {
        let container = Container()
        let resolved = Counter()
        container.register(Counter.self) { _ in resolved }
        let onDeinit: @Sendable () -> Void = { [weak container] in
            if container?.resolve(Counter.self) != nil { resolved.increment() }
        }
        container.register(ResolvingStore.self) { _ in ResolvingStore(["first"], onDeinit: onDeinit) }
            .implements((any Store).self)
            .inObjectScope(.container)
        container.decorate(ResolvingStore.self) { _, inner in inner.with("a") }
        container.decorate(ResolvingStore.self) { _, inner in inner.with("b") }
        #expect(try container.require((any Store).self).trail == ["first", "a", "b"])
        container.register(ResolvingStore.self) { _ in ResolvingStore(["second"], onDeinit: onDeinit) }
            .inObjectScope(.container)
        #expect(try container.require(ResolvingStore.self).trail == ["second", "a", "b"])
        #expect(try container.require((any Store).self).trail == ["first", "a", "b"])
        let before = resolved.value
        let other = container.register(ResolvingStore.self, name: "other") { _ in
            ResolvingStore(["other"], onDeinit: onDeinit)
        }
        container.forward((any Store).self, to: other)

        // The kept instance of the first registration was let go of, and its deinit resolved.
        #expect(resolved.value == before + 1)
        #expect(try container.require((any Store).self).trail == ["other"])
    }

    @Test func aChildsCopyThatOnlyAForwardedTypeHeldIsRetiredWhenMovedOut() throws {
        let parent = Container()
        let original = parent.register(FileStore.self) { _ in FileStore() }
            .implements((any Store).self)
            .inObjectScope(.container)
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        let storeKey = ServiceKey(serviceType: (any Store).self, argumentsType: noArguments)
        let firstCopy = try #require(child.ownEntry(for: storeKey) as? ServiceEntry<FileStore>)
        let kept = Watched(try child.require((any Store).self))
        // The parent replaces the service: the child's `FileStore` follows, its `Store` (still forwarded to the
        // first registration in the parent) stays on the first copy, which no other key of the child holds now.
        parent.register(FileStore.self) { _ in FileStore(["second"]) }.inObjectScope(.container)
        #expect(child.ownEntry(for: storeKey) === firstCopy)
        // The parent puts the first registration back: the child's new copy of it takes `Store` off the first copy.
        parent.forward(FileStore.self, to: original)

        #expect(child.ownEntry(for: storeKey) !== firstCopy)
        #expect(firstCopy.slot.retired)
        #expect(kept.instance == nil)
        let file = try child.require(FileStore.self)
        #expect(try child.require((any Store).self) === file)
        #expect(file.trail == ["file", "child"])
    }

    /// A parent that registers `FileStore`, forwards `Store` to it and decorates `Store`, and a child that decorates
    /// `FileStore`, which shares the parent's decorated forward around its own copy: the copy, under `FileStore` and
    /// under the forward's target key, and its kept instance, seen weakly.
    private func childSharingADecoratedForward() throws -> (
        parent: Container, child: Container, copy: ServiceEntry<FileStore>, kept: Watched, targetKey: ServiceKey
    ) {
        let parent = Container()
        parent.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        parent.decorate((any Store).self) { _, inner in ForwardedStores.Cached(inner) }
        let child = Container(parent: parent)
        child.decorate(FileStore.self) { _, inner in inner.with("child") }
        #expect(try child.require((any Store).self).trail == ["file", "child", "cached"])
        let storeKey = ServiceKey(serviceType: (any Store).self, argumentsType: noArguments)
        let targetKey = child.forwardedKey(of: storeKey, to: nil)
        let copy = try #require(child.ownEntry(for: targetKey) as? ServiceEntry<FileStore>)
        let fileKey = ServiceKey(serviceType: FileStore.self, argumentsType: noArguments)
        #expect(child.ownEntry(for: fileKey) === copy)
        return (parent, child, copy, Watched(try child.require(FileStore.self)), targetKey)
    }

    @Test func aChildRegisteringTheForwardedTypeLetsGoOfItsCopyUnderTheForwardsTargetKey() throws {
        let (_, child, copy, kept, targetKey) = try childSharingADecoratedForward()
        child.register((any Store).self) { _ in FileStore(["own"]) }

        #expect(child.ownEntry(for: targetKey) == nil)
        #expect(try child.require((any Store).self).trail == ["own"])
        // The copy is still the child's `FileStore`, until the child registers one of its own.
        #expect(try child.require(FileStore.self).trail == ["file", "child"])
        #expect(!copy.slot.retired)
        child.register(FileStore.self) { _ in FileStore(["own file"]) }
        #expect(copy.slot.retired)
        #expect(kept.instance == nil)
    }

    @Test func aChildsCopyUnderTheForwardsTargetKeyDoesNotOutliveTheParentsRemoveAll() throws {
        let (parent, child, copy, kept, targetKey) = try childSharingADecoratedForward()
        child.register((any Store).self) { _ in FileStore(["own"]) }
        parent.removeAll()

        #expect(child.ownEntry(for: targetKey) == nil)
        #expect(copy.slot.retired)
        #expect(kept.instance == nil)
        #expect(try child.require((any Store).self).trail == ["own"])
    }

    @Test func aChildWithItsOwnForwardedTypeKeepsNothingUnderTheTargetKeyWhenTheParentForwardsElsewhere() throws {
        let (parent, child, copy, _, targetKey) = try childSharingADecoratedForward()
        child.register((any Store).self) { _ in FileStore(["own"]) }
        let other = parent.register(FileStore.self, name: "other") { _ in FileStore(["other"]) }
        parent.forward((any Store).self, to: other)

        #expect(child.ownEntry(for: targetKey) == nil)
        #expect(!copy.slot.retired)
        #expect(try child.require((any Store).self).trail == ["own"])
        #expect(try child.require(FileStore.self).trail == ["file", "child"])
        #expect(try parent.require((any Store).self).trail == ["other", "cached"])
    }

    /// A container that decorates `Store` and forwards it to `first`, a `.container` registration of two.
    private func decoratedForwardToFirstOfTwo() -> (
        container: Container, first: ServiceEntry<FileStore>, second: ServiceEntry<FileStore>, storeKey: ServiceKey
    ) {
        let container = Container()
        let first = container.register(FileStore.self, name: "first") { _ in FileStore(["first"]) }
            .inObjectScope(.container)
        let second = container.register(FileStore.self, name: "second") { _ in FileStore(["second"]) }
        container.decorate((any Store).self) { _, inner in ForwardedStores.Cached(inner) }
        container.forward((any Store).self, to: first)
        let storeKey = ServiceKey(serviceType: (any Store).self, argumentsType: noArguments)
        #expect(first.scopeFollower(under: storeKey) === container.ownEntry(for: storeKey))
        return (container, first, second, storeKey)
    }

    @Test func aDecoratedForwardReplacedByAForwardElsewhereNoLongerFollowsItsTargetsScope() throws {
        let (container, first, second, storeKey) = decoratedForwardToFirstOfTwo()
        container.forward((any Store).self, to: second)

        #expect(first.scopeFollower(under: storeKey) == nil)
        #expect(second.scopeFollower(under: storeKey) === container.ownEntry(for: storeKey))
        #expect(try container.require((any Store).self).trail == ["second", "cached"])
    }

    @Test func aDecoratedForwardReplacedByARegistrationNoLongerFollowsItsTargetsScope() throws {
        let (container, first, _, storeKey) = decoratedForwardToFirstOfTwo()
        container.register((any Store).self) { _ in FileStore(["own"]) }

        #expect(first.scopeFollower(under: storeKey) == nil)
        #expect(try container.require((any Store).self).trail == ["own", "cached"])
    }

    @Test func decoratedForwardsRacingToTwoTargetsLeaveOnlyTheLiveOneFollowingItsTarget() throws {
        for _ in 0..<lighterUnderSanitizer(300) {
            let (container, first, second, storeKey) = decoratedForwardToFirstOfTwo()
            let third = container.register(FileStore.self, name: "third") { _ in FileStore(["third"]) }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                container.forward((any Store).self, to: index == 0 ? second : third)
            }
            let live = container.ownEntry(for: storeKey)
            #expect(first.scopeFollower(under: storeKey) == nil)
            let followers = [second, third].compactMap { $0.scopeFollower(under: storeKey) }
            #expect(followers.count == 1)
            #expect(followers.first === live)
        }
    }

    @Test func decoratedForwardsRacingToOneTargetLeaveTheLiveOneFollowingIt() throws {
        for _ in 0..<lighterUnderSanitizer(300) {
            let (container, first, second, storeKey) = decoratedForwardToFirstOfTwo()
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                container.forward((any Store).self, to: second)
            }
            #expect(first.scopeFollower(under: storeKey) == nil)
            #expect(second.scopeFollower(under: storeKey) === container.ownEntry(for: storeKey))
        }
    }
}
