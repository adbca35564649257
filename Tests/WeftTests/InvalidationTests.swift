import Testing

@testable import Weft

/// Replacing a registration or resetting a scope discards the kept instances that were made with the old
/// one, so that a singleton never holds on to a replaced dependency (a stale mock, an old session).
struct InvalidationTests {
    protocol Clock: AnyObject { var name: String { get } }
    final class SystemClock: Clock { let name = "system" }
    final class FakeClock: Clock { let name = "fake" }

    final class Scheduler {
        let clock: any Clock
        init(clock: any Clock) { self.clock = clock }
    }

    final class Dashboard {
        let scheduler: Scheduler
        init(scheduler: Scheduler) { self.scheduler = scheduler }
    }

    final class Unrelated {}

    private func container() -> Container {
        let container = Container()
        container.register((any Clock).self) { _ in SystemClock() }
        container.register(Scheduler.self) { r in Scheduler(clock: try r.require((any Clock).self)) }
            .inObjectScope(.container)
        container.register(Dashboard.self) { r in Dashboard(scheduler: try r.require(Scheduler.self)) }
            .inObjectScope(.container)
        container.register(Unrelated.self) { _ in Unrelated() }.inObjectScope(.container)
        return container
    }

    @Test func replacingADependencyDiscardsTheSingletonMadeWithIt() throws {
        let container = container()
        let before = try container.require(Scheduler.self)
        #expect(before.clock.name == "system")

        container.register((any Clock).self) { _ in FakeClock() }
        let after = try container.require(Scheduler.self)

        #expect(after !== before)
        #expect(after.clock.name == "fake")
        #expect(try container.require(Scheduler.self) === after)
    }

    @Test func invalidationReachesSingletonsThatDependOnTheDiscardedOneTransitively() throws {
        let container = container()
        let dashboard = try container.require(Dashboard.self)

        container.register((any Clock).self) { _ in FakeClock() }
        let rebuilt = try container.require(Dashboard.self)

        #expect(rebuilt !== dashboard)
        #expect(rebuilt.scheduler !== dashboard.scheduler)
        #expect(rebuilt.scheduler.clock.name == "fake")
    }

    @Test func singletonsThatDidNotUseTheReplacedRegistrationAreKept() throws {
        let container = container()
        let unrelated = try container.require(Unrelated.self)
        _ = try container.require(Scheduler.self)

        container.register((any Clock).self) { _ in FakeClock() }

        #expect(try container.require(Unrelated.self) === unrelated)
    }

    @Test func aDependencyResolvedInInitCompletedCountsToo() throws {
        final class Reporter {
            var clock: (any Clock)?
        }
        let container = container()
        container.register(Reporter.self) { _ in Reporter() }
            .inObjectScope(.container)
            .initCompleted { r, reporter in reporter.clock = try r.require((any Clock).self) }
        let before = try container.require(Reporter.self)

        container.register((any Clock).self) { _ in FakeClock() }
        let after = try container.require(Reporter.self)

        #expect(after !== before)
        #expect(after.clock?.name == "fake")
    }

    @Test func resettingAScopeDiscardsTheSingletonsMadeWithItsInstances() throws {
        final class Session {}
        final class Profile {
            let session: Session
            init(session: Session) { self.session = session }
        }
        let sessionScope = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(sessionScope)
        container.register(Profile.self) { r in Profile(session: try r.require(Session.self)) }
            .inObjectScope(.container)
        let profile = try container.require(Profile.self)

        container.resetObjectScope(sessionScope)
        let next = try container.require(Profile.self)

        #expect(next !== profile)
        #expect(next.session !== profile.session)
        #expect(try container.require(Session.self) === next.session)
    }

    @Test func theDiscardedSingletonIsReleased() throws {
        let container = container()
        weak var old: Scheduler?
        do {
            old = try container.require(Scheduler.self)
        }
        #expect(old != nil)

        container.register((any Clock).self) { _ in FakeClock() }

        #expect(old == nil)
    }

    @Test func overridingInAChildContainerLeavesTheParentsSingletonAlone() throws {
        let parent = container()
        let scheduler = try parent.require(Scheduler.self)
        let child = Container(parent: parent)

        child.register((any Clock).self) { _ in FakeClock() }

        #expect(try parent.require(Scheduler.self) === scheduler)
        #expect(try child.require((any Clock).self).name == "fake")
    }
}
