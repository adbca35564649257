import Weft

#if canImport(XCTest)
    import XCTest

    /// An `XCTestCase` whose every test runs with a fresh container as `Container.shared`.
    ///
    /// `setUp`, the test method and `tearDown` all see the test's own container, so registrations and
    /// singletons never leak from one test into the next, and property wrappers such as `@Injected` resolve
    /// from it. Overriding one registration is one line in the test (or in `setUp`):
    ///
    /// ```swift
    /// final class AlarmTests: IsolatedContainerTestCase {
    ///     override func setUpContainer(_ container: Container) {
    ///         _ = Assembler([AppAssembly()], container: container)
    ///     }
    ///
    ///     func testRingsAtSeven() throws {
    ///         Container.shared.register(Clock.self) { _ in FakeClock(hour: 7) }
    ///         XCTAssertTrue(Alarm().isRinging)
    ///     }
    /// }
    /// ```
    ///
    /// The container reaches the test's `async` code and the `Task { }`s it creates, but not `Task.detached`,
    /// `DispatchQueue` blocks or threads (see `Container.shared`).
    open class IsolatedContainerTestCase: XCTestCase {
        /// The assemblies every test of the class starts with, assembled into each test's fresh container
        /// before ``setUpContainer(_:)``. None unless overridden.
        ///
        /// ```swift
        /// override var containerAssemblies: [any Assembly] { [AppAssembly()] }
        /// ```
        open var containerAssemblies: [any Assembly] { [] }

        /// Assemblies whose registrations replace those of ``containerAssemblies`` of the same key, before any
        /// `loaded(resolver:)` runs (see `AssemblyOverride`). None unless overridden.
        ///
        /// ```swift
        /// override var containerOverrides: [any Assembly] { [FakeNetworkAssembly()] }
        /// ```
        open var containerOverrides: [any Assembly] { [] }

        /// Registers the services every test of the class starts with into that test's fresh container;
        /// runs before `setUp`, after ``containerAssemblies`` and ``containerOverrides``. Does nothing unless
        /// overridden.
        ///
        /// - Parameter container: The test's container, which is `Container.shared` while the test runs.
        open func setUpContainer(_ container: Container) {}

        /// Runs the test (with its `setUp` and `tearDown`) with a fresh container as `Container.shared`.
        open override func invokeTest() {
            let container = Container()
            let assemblies = containerAssemblies
            let overrides = containerOverrides
            if !assemblies.isEmpty || !overrides.isEmpty {
                _ = Assembler(assemblies, overriddenBy: overrides, container: container)
            }
            setUpContainer(container)
            Container.withShared(container) {
                super.invokeTest()
            }
        }
    }
#endif

/// Runs `operation` with a fresh container as `Container.shared`, made from the given assemblies; for
/// XCTest methods and any other code that wants a container of its own for a while.
///
/// ```swift
/// func testAlarmRingsAtSeven() throws {
///     try withIsolatedContainer { container in
///         container.register(Clock.self) { _ in FakeClock(hour: 7) }
///         XCTAssertTrue(Alarm().isRinging)
///     }
/// }
/// ```
///
/// - Parameters:
///   - assemblies: Assembled into the fresh container first, as an `Assembler` does.
///   - overrides: Their registrations replace the assemblies' ones of the same key, before any
///     `loaded(resolver:)` runs (see `AssemblyOverride`).
///   - operation: Receives the fresh container, which is `Container.shared` while it runs.
/// - Returns: What `operation` returns.
public func withIsolatedContainer<Result>(
    assemblies: [any Assembly] = [],
    overrides: [any Assembly] = [],
    _ operation: (Container) throws -> Result
) rethrows -> Result {
    let container = Container()
    _ = Assembler(assemblies, overriddenBy: overrides, container: container)
    return try Container.withShared(container) {
        try operation(container)
    }
}

/// Runs the asynchronous `operation` with a fresh container as `Container.shared`, made from the given
/// assemblies. Child tasks and `Task { }`s created inside see the same container.
///
/// ```swift
/// func testRefresh() async throws {
///     try await withIsolatedContainer { container in
///         container.register(API.self) { _ in FakeAPI() }
///         try await FeedModel().refresh()
///     }
/// }
/// ```
///
/// - Parameters:
///   - assemblies: Assembled into the fresh container first, as an `Assembler` does.
///   - overrides: Their registrations replace the assemblies' ones of the same key, before any
///     `loaded(resolver:)` runs (see `AssemblyOverride`).
///   - isolation: The actor `operation` runs on; the caller's, unless given.
///   - operation: Receives the fresh container, which is `Container.shared` while it runs.
/// - Returns: What `operation` returns.
public func withIsolatedContainer<Result>(
    assemblies: [any Assembly] = [],
    overrides: [any Assembly] = [],
    isolation: isolated (any Actor)? = #isolation,
    _ operation: (Container) async throws -> Result
) async rethrows -> Result {
    let container = Container()
    _ = Assembler(assemblies, overriddenBy: overrides, container: container)
    return try await Container.withShared(container, isolation: isolation) {
        try await operation(container)
    }
}
