import Foundation
import Testing
import Weft

/// A custom scope's storage is user code. Weft calls one storage from one thread at a time (its documented
/// contract: it need not be thread-safe), but holds none of its own locks meanwhile, so a storage method may use
/// the container; and racing resolves of a custom-scoped service still share one instance.
@Suite struct CustomStorageConcurrencyTests {
    final class Widget {}
    final class Gadget {}

    /// Fails the test when two threads are inside it at once; optionally runs `probe` on every read, as a storage
    /// that logs or consults the container would.
    final class CheckedStorage: InstanceStorage, @unchecked Sendable {
        private let inside = Counter()
        let overlaps = Counter()
        var probe: (() -> Void)?
        private var kept: Any?

        var instance: Any? {
            get { entered { kept } }
            set { entered { kept = newValue } }
        }

        func instance(inGraph _: GraphIdentifier) -> Any? {
            entered {
                probe?()
                return kept
            }
        }

        private func entered<T>(_ body: () -> T) -> T {
            if inside.increment() > 1 { _ = overlaps.increment() }
            // Long enough for another thread to arrive while this one is inside.
            usleep(50)
            defer { _ = inside.decrement() }
            return body()
        }
    }

    private static func scope(_ storage: CheckedStorage) -> ObjectScope {
        ObjectScope(storageFactory: { storage }, description: "checked")
    }

    @Test func aStorageMethodMayDescribeTheContainer() {
        let storage = CheckedStorage()
        let container = Container()
        container.register(Widget.self) { _ in Widget() }.inObjectScope(Self.scope(storage))
        let described = Collected<String>()
        storage.probe = { [weak container] in described.append(container?.description ?? "") }

        // On a thread of its own: a storage called under the registration's lock deadlocks here, since describing
        // the container reads every registration under its lock.
        let resolved = Counter()
        let thread = runOnThread { if container.resolve(Widget.self) != nil { _ = resolved.increment() } }
        #expect(thread.wait(seconds: 10))
        #expect(resolved.value == 1)
        #expect(described.values.contains { $0.contains("Widget") })
    }

    @Test func aStorageMethodMayResolveAnotherSharedService() {
        let storage = CheckedStorage()
        let container = Container()
        container.register(Gadget.self) { _ in Gadget() }.inObjectScope(.container)
        container.register(Widget.self) { r in
            _ = r.resolve(Gadget.self)
            return Widget()
        }.inObjectScope(Self.scope(storage))
        let gadgets = Collected<ObjectIdentifier>()
        storage.probe = { [weak container] in
            if let gadget = container?.resolve(Gadget.self) { gadgets.append(ObjectIdentifier(gadget)) }
        }

        let widgets = Collected<ObjectIdentifier>()
        let finished = runOnThread {
            runOnThreads(8) { _ in
                for _ in 0..<20 {
                    if let widget = container.resolve(Widget.self) { widgets.append(ObjectIdentifier(widget)) }
                }
            }
        }
        #expect(finished.wait(seconds: 30))
        #expect(widgets.values.count == 160)
        #expect(Set(widgets.values).count == 1)
        #expect(Set(gadgets.values).count == 1)
        #expect(storage.overlaps.value == 0)
    }

    @Test func racingResolvesShareOneInstancePerResetAndNeverOverlapInTheStorage() {
        let storage = CheckedStorage()
        let container = Container()
        let made = Counter()
        let scope = Self.scope(storage)
        container.register(Widget.self) { _ in
            _ = made.increment()
            return Widget()
        }.inObjectScope(scope)

        let rounds = lighterUnderSanitizer(40)
        var sharedEveryRound = true
        for _ in 0..<rounds {
            let seen = Collected<ObjectIdentifier>()
            runOnThreads(4) { _ in
                if let widget = container.resolve(Widget.self) { seen.append(ObjectIdentifier(widget)) }
            }
            sharedEveryRound = sharedEveryRound && seen.values.count == 4 && Set(seen.values).count == 1
            container.resetObjectScope(scope)
        }
        #expect(sharedEveryRound)
        #expect(made.value == rounds)
        #expect(storage.overlaps.value == 0)
    }

    // A storage called under one of Weft's locks while it describes the container waits forever: bounded.
    @Test(hangLimit)
    func racingAsyncResolvesOfACustomScopedAsyncFactoryShareOneInstance() async throws {
        let storage = CheckedStorage()
        let container = Container()
        let made = Counter()
        container.register(Widget.self) { _ async in
            _ = made.increment()
            await Task.yield()
            return Widget()
        }.inObjectScope(Self.scope(storage))
        storage.probe = { [weak container] in _ = container?.description }

        let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<16 {
                group.addTask { ObjectIdentifier(try await container.async.require(Widget.self)) }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(made.value == 1)
        #expect(storage.overlaps.value == 0)
    }
}
