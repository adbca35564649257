import Dispatch
import Foundation
import Testing
import Weft
import WeftTesting

/// Lazy property wrappers accessed for the first time by many threads or tasks at once: one resolution,
/// one instance.
@Suite struct LazyInjectedConcurrencyTests {
    final class Engine {}

    /// A slow transient factory that counts its calls, so that first accesses overlap.
    private static func engines(calls: Counter) -> Container {
        let container = Container()
        container.register(Engine.self) { _ in
            calls.increment()
            Thread.sleep(forTimeInterval: 0.01)
            return Engine()
        }
        .inObjectScope(.transient)
        return container
    }

    final class Car: @unchecked Sendable {
        @LazyInjected var engine: Engine
        @WeakLazyInjected var weakEngine: Engine?

        init(container: Container) {
            _engine = LazyInjected(container: container)
            _weakEngine = WeakLazyInjected(container: container)
        }
    }

    final class SharedCar: @unchecked Sendable {
        @LazyInjected var engine: Engine
    }

    @Test func threadsAccessingALazyPropertyFirstAtOnceGetOneInstance() {
        let calls = Counter()
        let car = Car(container: Self.engines(calls: calls))
        let seen = Collected<Engine>()

        runOnThreads(16) { _ in seen.append(car.engine) }

        #expect(calls.value == 1)
        #expect(seen.values.count == 16)
        #expect(seen.values.allSatisfy { $0 === car.engine })
    }

    @Test func threadsAccessingAWeakLazyPropertyFirstAtOnceGetOneInstance() throws {
        let calls = Counter()
        let car = Car(container: Self.engines(calls: calls))
        let seen = Collected<Engine>()

        runOnThreads(16) { _ in
            if let engine = car.weakEngine { seen.append(engine) }
        }

        #expect(calls.value == 1)
        #expect(seen.values.count == 16)
        let first = try #require(seen.values.first)
        #expect(seen.values.allSatisfy { $0 === first })
    }

    @Test func releaseWhileOtherThreadsReadIsSafe() {
        let calls = Counter()
        let car = Car(container: Self.engines(calls: calls))
        let missing = Counter()

        runOnThreads(8) { index in
            for _ in 0..<20 {
                if index == 0 {
                    car.$engine.release()
                } else if (try? car.$engine.get()) == nil {
                    missing.increment()
                }
            }
        }

        #expect(missing.value == 0)
        #expect(calls.value >= 1 && calls.value <= 21)
    }

    @Test(
        .isolatedContainer { c in
            c.register(Engine.self) { _ in Engine() }.inObjectScope(.transient)
        })
    func tasksAccessingALazyPropertyFirstAtOnceResolveOnceFromTheTestContainer() async {
        let car = SharedCar()

        let engines = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<32 {
                group.addTask { ObjectIdentifier(car.engine) }
            }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }

        #expect(engines == [ObjectIdentifier(car.engine)])
    }
}
