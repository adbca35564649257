import Testing
import Weft
import WeftTesting

/// `@LazyInjected` and `@WeakLazyInjected`: resolved on first access from the container of that moment,
/// kept (strongly or weakly) until `release()`, with a throwing `get()`.
@Suite struct LazyInjectedTests {
    final class Engine {}

    protocol Pilot: AnyObject {
        var name: String { get }
    }

    final class Person: Pilot {
        let name: String
        init(name: String) {
            self.name = name
        }
    }

    final class Car {
        @LazyInjected var engine: Engine
        @LazyInjected(name: "spare") var spare: Engine
    }

    final class Plane {
        @WeakLazyInjected var engine: Engine?
        @WeakLazyInjected var pilot: (any Pilot)?
    }

    /// Registers a transient `Engine` (plain and "spare") in `container`, counting the plain factory's calls.
    private static func registerEngines(_ container: Container, calls: Counter) {
        container.register(Engine.self) { _ in
            calls.increment()
            return Engine()
        }
        .inObjectScope(.transient)
        container.register(Engine.self, name: "spare") { _ in Engine() }
    }

    // MARK: @LazyInjected

    @Test(.isolatedContainer) func lazyInjectedResolvesOnFirstAccessOnly() {
        let calls = Counter()
        Self.registerEngines(Container.shared, calls: calls)

        let car = Car()
        #expect(calls.value == 0)
        let first = car.engine
        let second = car.engine

        #expect(calls.value == 1)
        #expect(first === second)
        #expect(car.spare !== first)
    }

    @Test func lazyInjectedReadsSharedAtFirstAccessNotAtInit() {
        let early = Container()
        let late = Container()
        let earlyCalls = Counter()
        let lateCalls = Counter()
        Self.registerEngines(early, calls: earlyCalls)
        Self.registerEngines(late, calls: lateCalls)

        let car = Container.withShared(early) { Car() }
        Container.withShared(late) { _ = car.engine }

        #expect(earlyCalls.value == 0)
        #expect(lateCalls.value == 1)
    }

    @Test(.isolatedContainer) func releaseMakesTheNextAccessResolveAgain() {
        let calls = Counter()
        Self.registerEngines(Container.shared, calls: calls)
        let car = Car()
        let first = car.engine

        car.$engine.release()
        let second = car.engine

        #expect(calls.value == 2)
        #expect(first !== second)
    }

    @Test(.isolatedContainer) func getThrowsTheResolutionErrorAndResolvesOnceRegistered() throws {
        let car = Car()

        let error = try #require(throws: ResolutionError.self) { try car.$engine.get() }
        #expect(error.reason == .missingRegistration)
        #expect(error.serviceType == "Engine")

        Self.registerEngines(Container.shared, calls: Counter())
        #expect(try car.$engine.get() === car.engine)
    }

    @Test(.isolatedContainer) func settingALazyPropertyReplacesItsInstance() {
        let calls = Counter()
        Self.registerEngines(Container.shared, calls: calls)
        let car = Car()
        let own = Engine()

        car.engine = own

        #expect(car.engine === own)
        #expect(calls.value == 0)
    }

    @Test func lazyInjectedWithAContainerIgnoresShared() {
        let given = Container()
        given.register(Engine.self) { _ in Engine() }.inObjectScope(.container)
        final class Truck {
            @LazyInjected var engine: Engine
            init(given: Container) {
                _engine = LazyInjected(container: given)
            }
        }

        let truck = Container.withShared(Container()) { Truck(given: given) }

        #expect(truck.engine === given.resolve(Engine.self))
    }

    // MARK: @WeakLazyInjected

    @Test(.isolatedContainer) func weakLazyInjectedKeepsItsInstanceOnlyWhileSomethingElseDoes() {
        let calls = Counter()
        Container.shared.register(Engine.self) { _ in
            calls.increment()
            return Engine()
        }
        .inObjectScope(.transient)
        let plane = Plane()

        var kept: Engine? = plane.engine
        #expect(kept != nil)
        #expect(plane.engine === kept)
        kept = nil

        #expect(plane.engine == nil)
        #expect(calls.value == 1)
    }

    @Test(.isolatedContainer) func weakLazyReleaseAllowsANewResolution() {
        Container.shared.register(Engine.self) { _ in Engine() }.inObjectScope(.container)
        let plane = Plane()
        _ = plane.engine
        Container.shared.resetObjectScope(.container)
        #expect(plane.engine == nil)

        plane.$engine.release()

        #expect(plane.engine === Container.shared.resolve(Engine.self))
    }

    @Test(.isolatedContainer) func weakLazyInjectedHoldsClassBoundProtocols() throws {
        let pilot = Person(name: "Amelia")
        Container.shared.register((any Pilot).self) { _ in pilot }
        let plane = Plane()

        #expect(plane.pilot?.name == "Amelia")
        #expect(try plane.$pilot.get() === pilot)
    }

    @Test(.isolatedContainer) func weakLazyGetThrowsTheResolutionError() throws {
        let plane = Plane()

        let error = try #require(throws: ResolutionError.self) { try plane.$pilot.get() }

        #expect(error.reason == .missingRegistration)
    }

    @Test(.isolatedContainer) func settingAWeakLazyPropertyToNilKeepsItEmptyWithoutResolving() {
        let calls = Counter()
        Self.registerEngines(Container.shared, calls: calls)
        let plane = Plane()

        plane.engine = nil

        #expect(plane.engine == nil)
        #expect(calls.value == 0)
    }
}
