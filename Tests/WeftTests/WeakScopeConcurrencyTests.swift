import Foundation
import Testing
import Weft

/// `.weak` instances die while other threads read them: every read must see a live instance or none, and a
/// resolve must hand out a live one.
@Suite struct WeakScopeConcurrencyTests {
    final class Widget {}

    /// Starts `count` threads together, runs `body(index)` on each and waits for all of them.
    private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                start.wait()
                body(index)
                group.leave()
            }
            thread.start()
        }
        for _ in 0..<count { start.signal() }
        group.wait()
    }

    private func hammer(_ container: Container, threads: Int = 8, iterations: Int = 20_000) -> Int {
        let failures = Counter()
        onThreads(threads) { _ in
            for _ in 0..<iterations {
                // Dropped at once: the instance dies while other threads look it up.
                if container.resolve(Widget.self) == nil { failures.increment() }
            }
        }
        return failures.value
    }

    @Test func weakScopeResolvesFromManyThreadsWhileInstancesDie() {
        let container = Container()
        container.register(Widget.self) { _ in Widget() }.inObjectScope(.weak)
        #expect(hammer(container) == 0)
    }

    @Test func customScopesOnWeakStorageResolveFromManyThreadsWhileInstancesDie() {
        let weakOnly = ObjectScope(storageFactory: WeakStorage.init, description: "weakOnly")
        // A parent makes each storage a CompositeStorage, which reads the weak component first.
        let weakWithParent = ObjectScope(
            storageFactory: WeakStorage.init,
            description: "weakWithParent",
            parent: ObjectScope.transient
        )
        for scope in [weakOnly, weakWithParent] {
            let container = Container()
            container.register(Widget.self) { _ in Widget() }.inObjectScope(scope)
            #expect(hammer(container) == 0, "\(scope)")
        }
    }

    @Test func compositeStorageReadsEachComponentOnce() {
        // A component whose instance is gone on the second read: the composite must not read it twice.
        final class Flaky: InstanceStorage {
            var reads = 0
            var instance: Any? {
                get {
                    reads += 1
                    return reads == 1 ? Widget() as Any : nil
                }
                set {}
            }
            func instance(inGraph _: GraphIdentifier) -> Any? { instance }
        }
        let flaky = Flaky()
        let composite = CompositeStorage([flaky, PermanentStorage()])
        let found = composite.instance
        #expect(found is Widget)
        #expect(flaky.reads == 1)
        let other = Flaky()
        let inGraph = CompositeStorage([other]).instance(inGraph: GraphIdentifier())
        #expect(inGraph is Widget)
        #expect(other.reads == 1)
    }
}
