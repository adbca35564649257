import Foundation
import Testing
import Weft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A custom scope's storage and scope object are user code that Weft serialises per registration. When one of
/// them blocks, the threads waiting for it must sleep, not burn a core each (on a server they would starve the
/// cooperative pool).
@Suite struct BlockingUserCodeTests {
    final class Widget {}

    /// A storage whose reads block for `delay` seconds, as a storage backed by slow I/O would.
    final class SlowStorage: InstanceStorage {
        let delay: Double
        var instance: Any?

        init(delay: Double) { self.delay = delay }

        func instance(inGraph _: GraphIdentifier) -> Any? {
            Thread.sleep(forTimeInterval: delay)
            return instance
        }
    }

    /// A scope whose storage takes `delay` seconds to make.
    final class SlowScope: ObjectScopeProtocol, @unchecked Sendable {
        let delay: Double

        init(delay: Double) { self.delay = delay }

        func makeStorage() -> any InstanceStorage {
            Thread.sleep(forTimeInterval: delay)
            return PermanentStorage()
        }
    }

    /// The processor time the calling thread has used, in seconds.
    private static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Resolves `Widget` on 8 threads at once and returns the processor time they used together, in seconds.
    private func processorTimeOfEightResolvingThreads(_ container: Container) -> (seconds: Double, nils: Int) {
        let used = Collected<Double>()
        let nils = Counter()
        runOnThreads(8) { _ in
            let start = Self.threadCPUTime()
            if container.resolve(Widget.self) == nil { nils.increment() }
            used.append(Self.threadCPUTime() - start)
        }
        return (used.values.reduce(0, +), nils.value)
    }

    @Test func threadsWaitingForABlockedStorageSleep() {
        let container = Container()
        container.register(Widget.self) { _ in Widget() }
            .inObjectScope(ObjectScope(storageFactory: { SlowStorage(delay: 0.2) }, description: "slow"))
        _ = container.resolve(Widget.self)

        // Each resolve holds the registration for 0.2 s: the last of the 8 threads waits 1.4 s. Spinning or
        // yielding waiters would use about as much processor time as the wait lasts.
        let (seconds, nils) = processorTimeOfEightResolvingThreads(container)
        #expect(nils == 0)
        #expect(seconds < 0.25, "the waiting threads used \(seconds) s of processor time")
    }

    @Test func threadsWaitingForABlockedScopeObjectSleep() {
        let container = Container()
        container.register(Widget.self) { _ in Widget() }.inObjectScope(SlowScope(delay: 1.0))

        let (seconds, nils) = processorTimeOfEightResolvingThreads(container)
        #expect(nils == 0)
        #expect(seconds < 0.25, "the waiting threads used \(seconds) s of processor time")
    }

    /// A scope whose storage is made by code that reads the container's registrations.
    final class DescribingScope: ObjectScopeProtocol, @unchecked Sendable {
        weak var container: Container?
        var described = ""

        func makeStorage() -> any InstanceStorage {
            described = container?.description ?? ""
            return PermanentStorage()
        }
    }

    @Test func aScopeObjectMakingStorageMayUseTheContainer() {
        let container = Container()
        let scope = DescribingScope()
        scope.container = container
        container.register(Widget.self) { _ in Widget() }.inObjectScope(scope)
        // On a thread of its own: a scope object called under the registration's lock would deadlock here.
        let resolved = Counter()
        let thread = runOnThread { if container.resolve(Widget.self) != nil { resolved.increment() } }
        #expect(thread.wait(seconds: 10))
        #expect(resolved.value == 1)
        #expect(scope.described.contains("Widget"))
    }
}
