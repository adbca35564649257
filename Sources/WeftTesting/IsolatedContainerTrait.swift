import Testing
import Weft

/// A Swift Testing trait that runs each test with a fresh container as `Container.shared`.
///
/// Swift Testing runs tests in parallel. With this trait each test case (each argument of a parameterized
/// test, too) gets a container of its own, so registrations, overrides and `.container` singletons never
/// leak from one test into another, and property wrappers such as `@Injected` resolve from the test's
/// container. The container reaches everything the test runs, including child tasks and `Task { }`s, but not
/// `Task.detached`, `DispatchQueue` blocks or threads (see `Container.shared`).
///
/// ```swift
/// @Test(.isolatedContainer { c in
///     c.register(Clock.self) { _ in FakeClock() }
/// })
/// func alarmRingsAtSeven() throws {
///     let alarm = Alarm()            // its @Injected clock is the FakeClock
///     ...
/// }
///
/// @Suite(.isolatedContainer(assemblies: [AppAssembly()]))
/// struct CheckoutTests {
///     @Test func usesTheRealCart() { ... }                 // AppAssembly's registrations
///
///     @Test func paysWithAFakeCard() throws {
///         Container.shared.register(PaymentCard.self) { _ in FakeCard() }   // this test only
///         ...
///     }
/// }
/// ```
///
/// On a suite the trait applies to every test in it, each with its own container. When a test has the trait
/// and its suite too, the test's registrations go into the same fresh container after the suite's, so the
/// test's registrations replace the suite's.
public struct IsolatedContainerTrait: TestTrait, SuiteTrait, TestScoping {
    private let prepare: @Sendable (Container) throws -> Void

    fileprivate init(prepare: @escaping @Sendable (Container) throws -> Void) {
        self.prepare = prepare
    }

    /// Always `true`: applied to a suite, the trait gives every test in it a fresh container.
    public var isRecursive: Bool { true }

    /// Runs the test case with a fresh container (or the one an enclosing isolated-container trait made for
    /// it) as `Container.shared`, after registering this trait's services into it.
    ///
    /// - Parameters:
    ///   - test: The test being run.
    ///   - testCase: The test case being run.
    ///   - function: Runs the test case.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        if let enclosing = Self.madeForThisTest {
            try prepare(enclosing)
            try await function()
            return
        }
        let container = Container()
        try prepare(container)
        try await Self.$madeForThisTest.withValue(container) {
            try await Container.withShared(container) {
                try await function()
            }
        }
    }

    /// The container an isolated-container trait made for the running test case, so that a second such
    /// trait on the same test adds to it instead of hiding it.
    @TaskLocal private static var madeForThisTest: Container?
}

extension Trait where Self == IsolatedContainerTrait {
    /// Runs each test with a fresh, empty container as `Container.shared`.
    ///
    /// ```swift
    /// @Test(.isolatedContainer) func startsEmpty() {
    ///     #expect(Container.shared.resolve(Clock.self) == nil)
    /// }
    /// ```
    public static var isolatedContainer: Self {
        Self { _ in }
    }

    /// Runs each test with a fresh container as `Container.shared`, after `register` has registered services
    /// into it.
    ///
    /// ```swift
    /// @Test(.isolatedContainer { c in
    ///     c.register(Clock.self) { _ in FakeClock() }.inObjectScope(.container)
    /// })
    /// func alarm() { ... }
    /// ```
    ///
    /// - Parameter register: Registers services into the test's container; it runs once per test case.
    ///   If it throws, the test fails with that error.
    public static func isolatedContainer(_ register: @escaping @Sendable (Container) throws -> Void) -> Self {
        Self(prepare: register)
    }

    /// Runs each test with a fresh container as `Container.shared`, after the given assemblies (and then
    /// `register`) have registered services into it.
    ///
    /// ```swift
    /// @Suite(.isolatedContainer(assemblies: [NetworkAssembly(), StorageAssembly()]))
    /// struct SyncTests { ... }
    ///
    /// @Suite(.isolatedContainer(assemblies: [AppAssembly()], overrides: [FakeNetworkAssembly()]))
    /// struct OfflineTests { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - assemblies: Evaluated anew for each test case, then assembled as an `Assembler` does (each
    ///     assembly's `loaded(resolver:)` runs once all are assembled).
    ///   - overrides: Evaluated anew for each test case; their registrations replace the assemblies' ones of
    ///     the same key before any `loaded(resolver:)` runs, so what depends on them is built with them (see
    ///     `AssemblyOverride`).
    ///   - register: Registers further services, after the assemblies: it can replace their registrations.
    public static func isolatedContainer(
        assemblies: @autoclosure @escaping @Sendable () -> [any Assembly],
        overrides: @autoclosure @escaping @Sendable () -> [any Assembly] = [],
        _ register: @escaping @Sendable (Container) throws -> Void = { _ in }
    ) -> Self {
        Self { container in
            _ = Assembler(assemblies(), overriddenBy: overrides(), container: container)
            try register(container)
        }
    }
}
