#if canImport(XCTest)
    import Weft
    import WeftTesting
    import XCTest

    /// `IsolatedContainerTestCase`: setUp, the test and tearDown see a fresh `Container.shared` per test.
    final class IsolatedContainerTestCaseTests: IsolatedContainerTestCase {
        private var containerInSetUp: Container?

        override func setUpContainer(_ container: Container) {
            _ = Assembler([ClockAssembly()], container: container)
        }

        override func setUp() {
            super.setUp()
            containerInSetUp = Container.shared
        }

        override func tearDown() {
            XCTAssertTrue(Container.shared === containerInSetUp)
            super.tearDown()
        }

        func testSetUpContainerRegistersIntoTheTestsContainer() {
            XCTAssertEqual(Alarm().clock.name, "system")
            XCTAssertTrue(Container.shared === containerInSetUp)
        }

        func testEveryTestGetsFreshSingletons() throws {
            let visits = try Container.shared.require(Visits.self)
            visits.record()

            XCTAssertEqual(visits.value, 1)
        }

        func testAnotherTestAlsoGetsFreshSingletons() throws {
            let visits = try Container.shared.require(Visits.self)
            visits.record()

            XCTAssertEqual(visits.value, 1)
        }

        func testOverridingOneRegistrationIsOneLine() {
            Container.shared.register((any Clock).self) { _ in FakeClock(name: "fake") }

            XCTAssertEqual(Alarm().clock.name, "fake")
        }

        func testDetachedTasksSeeTheProcessWideContainerInstead() async {
            let inDetachedTask = await Task.detached { Container.shared }.value

            XCTAssertFalse(inDetachedTask === containerInSetUp)
            XCTAssertNil(inDetachedTask.resolve(Visits.self))
        }

        func testAsyncTestsSeeTheTestsContainer() async throws {
            let inTask = await Task { Container.shared }.value

            XCTAssertTrue(Container.shared === containerInSetUp)
            XCTAssertTrue(inTask === containerInSetUp)
        }
    }

    /// `withIsolatedContainer` in a plain `XCTestCase`.
    final class WithIsolatedContainerTests: XCTestCase {
        func testWithIsolatedContainerGivesAFreshSharedContainer() throws {
            let outside = Container.shared

            let name = try withIsolatedContainer(assemblies: [ClockAssembly()]) { container in
                XCTAssertTrue(Container.shared === container)
                container.register((any Clock).self) { _ in FakeClock(name: "inside") }
                return try Container.shared.require((any Clock).self).name
            }

            XCTAssertEqual(name, "inside")
            XCTAssertTrue(Container.shared === outside)
            XCTAssertNil(outside.resolve((any Clock).self))
        }

        func testWithIsolatedContainerEndsWhenItsOperationThrows() {
            struct Stop: Error {}
            let outside = Container.shared

            XCTAssertThrowsError(try withIsolatedContainer { _ in throw Stop() })
            XCTAssertTrue(Container.shared === outside)
        }

        func testAsyncWithIsolatedContainerReachesChildTasks() async {
            let names = await withIsolatedContainer { container in
                container.register((any Clock).self) { _ in FakeClock(name: "async") }
                async let child = Container.shared.resolve((any Clock).self)?.name
                return [Alarm().clock.name, await child]
            }

            XCTAssertEqual(names, ["async", "async"])
        }
    }

    /// `containerAssemblies` and `containerOverrides`: an override assembly for every test of a class in one line.
    final class IsolatedContainerOverrideTestCaseTests: IsolatedContainerTestCase {
        override var containerAssemblies: [any Assembly] { [ClockAssembly()] }
        override var containerOverrides: [any Assembly] { [FakeClockAssembly()] }

        func testOverrideReplacesTheAssemblysRegistration() {
            XCTAssertEqual(Alarm().clock.name, "override")
            XCTAssertNotNil(Container.shared.resolve(Visits.self))
        }

        func testWithIsolatedContainerTakesOverridesToo() throws {
            try withIsolatedContainer(assemblies: [ClockAssembly()], overrides: []) { container in
                XCTAssertEqual(try container.require((any Clock).self).name, "system")
            }
            withIsolatedContainer(assemblies: [ClockAssembly()], overrides: [FakeClockAssembly()]) { _ in
                XCTAssertEqual(Alarm().clock.name, "override")
            }
        }
    }
#endif
