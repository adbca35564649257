import Foundation
import Testing
import Weft
import WeftTesting

/// The `.isolatedContainer` trait: a fresh `Container.shared` per test case, made from closures or
/// assemblies, on a test or a whole suite.
@Suite struct IsolatedContainerTraitTests {
    /// Counts the loads of the assemblies of ``assembliesAreAssembledAndLoaded()`` only.
    static let loadsOfOneTest = Visits()

    @Test(.isolatedContainer) func emptyTraitGivesAnEmptyContainerOfTheTestsOwn() async {
        let processWide = await Task.detached { Container.shared }.value

        #expect(Container.shared !== processWide)
        #expect(Container.shared.resolve((any Clock).self) == nil)
    }

    @Test(
        .isolatedContainer { c in
            c.register((any Clock).self) { _ in FakeClock(name: "trait") }
        })
    func registrationsOfTheTraitAreThereWhenTheTestStarts() {
        #expect(Alarm().clock.name == "trait")
    }

    @Test(.isolatedContainer(assemblies: [ClockAssembly(loads: IsolatedContainerTraitTests.loadsOfOneTest)]))
    func assembliesAreAssembledAndLoaded() throws {
        #expect(Alarm().clock.name == "system")
        #expect(Self.loadsOfOneTest.value == 1)
    }

    @Test(
        .isolatedContainer(assemblies: [ClockAssembly()]) { c in
            c.register((any Clock).self) { _ in FakeClock(name: "after the assembly") }
        })
    func registrationsAfterAssembliesReplaceTheirs() throws {
        #expect(Alarm().clock.name == "after the assembly")
        #expect(Container.shared.resolve(Visits.self) != nil)
    }

    @Test(.isolatedContainer(assemblies: [ClockAssembly()]), arguments: ["a", "b", "c"])
    func everyArgumentGetsItsOwnContainer(label _: String) throws {
        let visits = try Container.shared.require(Visits.self)
        visits.record()

        #expect(visits.value == 1)
    }

    @Test func testsWithoutTheTraitUseTheProcessWideContainer() async {
        let processWide = await Task.detached { Container.shared }.value

        #expect(Container.shared === processWide)
        #expect(processWide.resolve(Visits.self) == nil)
    }
}

/// The trait on a suite: every test starts with the suite's registrations in a container of its own.
@Suite(.isolatedContainer(assemblies: [ClockAssembly()]))
struct IsolatedContainerSuiteTraitTests {
    @Test func everyTestStartsWithTheSuitesRegistrations() throws {
        #expect(Alarm().clock.name == "system")
    }

    @Test func singletonsAreFreshInEveryTestOfTheSuite() throws {
        let visits = try Container.shared.require(Visits.self)
        visits.record()

        #expect(visits.value == 1)
    }

    @Test func anotherTestOfTheSuiteAlsoGetsFreshSingletons() throws {
        let visits = try Container.shared.require(Visits.self)
        visits.record()

        #expect(visits.value == 1)
    }

    @Test(
        .isolatedContainer { c in
            c.register((any Clock).self) { _ in FakeClock(name: "test") }
        })
    func aTestsOwnTraitAddsToTheSuitesContainer() throws {
        #expect(Alarm().clock.name == "test")
        #expect(Container.shared.resolve(Visits.self) != nil)
    }

    @Test func overridingOneRegistrationIsOneLine() throws {
        Container.shared.register((any Clock).self) { _ in FakeClock(name: "fake") }

        #expect(Alarm().clock.name == "fake")
    }
}

// MARK: - Fixtures shared by the WeftTesting tests

/// The service the isolation tests override: a clock, real or fake.
protocol Clock: AnyObject, Sendable {
    var name: String { get }
}

final class SystemClock: Clock {
    let name = "system"
}

final class FakeClock: Clock {
    let name: String

    init(name: String) {
        self.name = name
    }
}

/// Counts visits; registered in `.container` scope, it shows whether a singleton is fresh.
final class Visits: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func record() {
        lock.withLock { count += 1 }
    }
}

/// Resolves its clock from `Container.shared` when made.
final class Alarm {
    @Injected var clock: any Clock
}

/// The app's registrations: the system clock and a visit counter, both singletons.
struct ClockAssembly: Assembly {
    /// Records each `loaded(resolver:)` call, when given.
    var loads: Visits?

    func assemble(container: Container) {
        container.register((any Clock).self) { _ in SystemClock() }.inObjectScope(.container)
        container.register(Visits.self) { _ in Visits() }.inObjectScope(.container)
    }

    func loaded(resolver _: any Resolver) {
        loads?.record()
    }
}

/// The system clock replaced by a fake one, as a test's override assembly.
struct FakeClockAssembly: Assembly {
    func assemble(container: Container) {
        container.register((any Clock).self) { _ in FakeClock(name: "override") }.inObjectScope(.container)
    }
}

/// The trait's `overrides:`: the override's registrations replace the assemblies' ones, the rest stays.
@Suite(.isolatedContainer(assemblies: [ClockAssembly()], overrides: [FakeClockAssembly()]))
struct IsolatedContainerOverrideTraitTests {
    @Test func overrideReplacesTheAssemblysRegistrationInOneLine() throws {
        #expect(Alarm().clock.name == "override")
        #expect(Container.shared.resolve(Visits.self) != nil)
    }
}
